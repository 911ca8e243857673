// Fuzz target: the chip_swimlane_records.json that dfx deps reads beside
// deps.json for each task's core type (deps::read_perf_sidecar). It is a
// separate, lighter reader than the swimlane tools' (json_object_stream and
// Python-style int() leniency instead of json_stream and strict integers), so
// it gets its own target and shares the records seeds.
#include "dfx/convert/deps/perf_sidecar.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("chip_swimlane_records.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] { (void)dfx::convert::deps::read_perf_sidecar(path); });
    return 0;
}
