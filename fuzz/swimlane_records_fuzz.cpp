// Fuzz target: chip_swimlane_records.json, the swimlane tools' input.
//
// load_perf_data is what every swimlane tool reads through: it wraps
// read_records_file (the streaming parse) and then joins, picks the time base
// and aligns host and device clocks, all driven by the file's numbers, so one
// target covers both (a separate read_records_file target would add nothing).
//
// The bytes are also parsed with 7-byte blocks and 40-byte batches: the stream
// must reach the same verdict however the file is split into blocks and batches (the unit tests try chosen
// boundaries; this tries every boundary the fuzzer can think of).
#include <cstdio>
#include <cstdlib>

#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "fuzz_support.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

struct outline {  // what must not depend on the chunk size
    bool ok = false;
    std::size_t aicore = 0, aicpu = 0, sched = 0, orch = 0, host_orch = 0, uploads = 0;
    bool operator==(const outline&) const = default;
};

outline read_with_chunk(const std::string& path, std::size_t chunk) {
    outline o;
    o.ok = dfx::fuzz::expect_input_error_only(path, [&] {
        const sw::records_file rf = sw::records_reader(path, chunk, chunk < 64 ? 40 : dfx::convert::json_object_stream::default_batch_bytes).read();
        o.aicore = rf.aicore.size();
        o.aicpu = rf.aicpu.size();
        o.sched = rf.sched.size();
        o.orch = rf.orch.size();
        o.host_orch = rf.host_orch.size();
        o.uploads = rf.uploads.size();
    });
    return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("chip_swimlane_records.json");
    const std::string& path = file.write(data, size);

    // One read for any input up to -max_len, as read_records_file's 1 MiB chunk
    // would do (a 1 MiB buffer per read would be a fresh mapping each run under ASan).
    const outline whole = read_with_chunk(path, std::size_t{64} << 10);
    const outline small = read_with_chunk(path, 7);
    if (!(whole == small)) {
        std::fprintf(stderr, "records_reader: 64 KiB and 7-byte chunks disagree (ok %d/%d, aicore %zu/%zu)\n", whole.ok,
                     small.ok, whole.aicore, small.aicore);
        std::abort();
    }
    dfx::fuzz::expect_input_error_only(path, [&] { (void)sw::load_perf_data(path, dfx::fuzz::dev_null()); });
    return 0;
}
