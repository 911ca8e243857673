// Fuzz target: chip_swimlane_records.json as dfx critical-path reads it
// (clock_freq_hz and the AICore slices, deps::detail::read_cp_records). A
// third reader of the records file, with its own handler, so its own target;
// it shares the records seeds.
#include "dfx/convert/deps/critical_path.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("chip_swimlane_records.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] { (void)dfx::convert::deps::detail::read_cp_records(path); });
    return 0;
}
