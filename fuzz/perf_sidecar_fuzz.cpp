// Fuzz target: the chip_swimlane_records.json that dfx deps reads beside
// deps.json for each task's core type (deps::read_perf_sidecar): the records'
// one reader (records_reader), checked and leniently, then the join on
// (core_id, reg_task_id) that decides which tasks read_perf_data returns.
// It shares the records seeds.
#include "dfx/convert/deps/perf_sidecar.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("chip_swimlane_records.json");
    const std::string& path = file.write(data, size);
    for (const bool lenient : {false, true})
        dfx::fuzz::expect_input_error_only(path, [&] { (void)dfx::convert::deps::read_perf_sidecar(path, lenient); });
    return 0;
}
