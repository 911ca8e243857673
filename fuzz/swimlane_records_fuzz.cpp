// Fuzz target: chip_swimlane_records.json, the swimlane tools' input.
//
// load_perf_data is what every swimlane tool reads through: it wraps
// read_records_file (the streaming parse) and then joins, picks the time base
// and aligns host and device clocks, all driven by the file's numbers, so one
// target covers both (a separate read_records_file target would add nothing).
//
// The bytes are also parsed with 7-byte blocks and 40-byte batches: the stream
// must reach the same verdict however the file is split into blocks and batches (the unit tests try chosen
// boundaries; this tries every boundary the fuzzer can think of). And once
// more without the fast paths for task rows and phases: what they read,
// field by field, must be what the general path reads.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "fuzz_support.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

struct outline {  // what must not depend on the chunk size or the fast paths
    bool ok = false;
    std::size_t aicore = 0, aicpu = 0, sched = 0, orch = 0, host_orch = 0, uploads = 0;
    std::uint64_t digest = 0;  // every value read, folded
    bool operator==(const outline&) const = default;
};

// FNV-1a over the values, in order.
struct fold {
    std::uint64_t h = 14695981039346656037ULL;
    void operator()(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ULL;
    }
};

std::uint64_t digest_of(const sw::records_file& rf) {
    fold f;
    f(rf.base_cycles);
    f(rf.min_device_cycles);
    f(rf.max_device_cycles);
    for (const auto& r : rf.aicore) {
        f(r.core), f(r.token), f(r.reg), f(r.start), f(r.end), f(r.r2s);
    }
    for (const auto& r : rf.aicpu) {
        f(r.core), f(r.reg), f(r.dispatch), f(r.finish);
    }
    for (const sw::sched_lane& lane : rf.sched) {
        f(static_cast<std::uint64_t>(lane.pop_hit)), f(static_cast<std::uint64_t>(lane.pop_miss)), f(lane.size());
        for (const sw::sched_record& r : lane) {
            f(r.start_cycles), f(r.end_cycles), f(static_cast<std::uint64_t>(r.loop_iter));
            f(static_cast<std::uint64_t>(r.tasks_processed)), f(r.task_id), f(static_cast<std::uint64_t>(r.kind));
            for (int i = 0; i < 3; ++i)
                f(static_cast<std::uint32_t>(r.depth_start[i])), f(static_cast<std::uint32_t>(r.depth_end[i]));
            f(std::uint64_t{r.has_tasks_processed} | std::uint64_t{r.has_task_id} << 1 | std::uint64_t{r.depths_valid} << 2);
        }
    }
    for (const auto* lanes : {&rf.orch, &rf.host_orch})
        for (const sw::orch_phase_list& lane : *lanes) {
            f(lane.size());
            for (const sw::orch_record& r : lane) {
                f(r.start), f(r.end), f(static_cast<std::uint64_t>(r.submit_idx)), f(r.task_id.value), f(r.task_id.negative);
            }
        }
    return f.h;
}

outline read_with_chunk(const std::string& path, std::size_t chunk, bool fast = true) {
    outline o;
    o.ok = dfx::fuzz::expect_input_error_only(path, [&] {
        const sw::records_file rf =
            sw::records_reader(path, chunk, chunk < 64 ? 40 : dfx::convert::json_object_stream::default_batch_bytes)
                .fast_rows(fast)
                .read();
        o.aicore = rf.aicore.size();
        o.aicpu = rf.aicpu.size();
        o.sched = rf.sched.size();
        o.orch = rf.orch.size();
        o.host_orch = rf.host_orch.size();
        o.uploads = rf.uploads.size();
        o.digest = digest_of(rf);
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
    const outline general = read_with_chunk(path, std::size_t{64} << 10, false);
    if (!(whole == general)) {
        std::fprintf(stderr, "records_reader: the fast paths and the general one disagree (ok %d/%d, sched %zu/%zu)\n",
                     whole.ok, general.ok, whole.sched, general.sched);
        std::abort();
    }
    dfx::fuzz::expect_input_error_only(path, [&] { (void)sw::load_perf_data(path, dfx::fuzz::dev_null()); });
    return 0;
}
