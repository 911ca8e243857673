// Fuzz target: scope_stats.jsonl (read_scope_stats): a metadata line, then
// one JSON object per line, each parsed on its own by simdjson.
#include "dfx/convert/scope_stats/scope_stats_reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("scope_stats.jsonl");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] { (void)dfx::convert::read_scope_stats(path); });
    return 0;
}
