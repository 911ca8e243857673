// A sample device loop: what a runtime built for the device looks like with
// dfxkit collectors at swimlane level 4. Built with -fno-exceptions -fno-rtti;
// check_eh_rtti.py then asserts the linked executable neither defines nor
// references any exception-handling or RTTI symbol.
//
// One orchestrator submits tasks into a ready queue, one scheduler dispatches
// them to a few simulated AICore workers and observes their completion. The
// roles are interleaved on one thread (no std::thread, as on the device's
// AICPU there is no host threading library), every stamp goes through the
// role views, and the records are checked at the end: the exit status is 0
// only when every record that level 4 must produce is there and consistent.
//
// Built a second time with -DDFX_DEVICE_LOOP_TWIN and exceptions/RTTI on, the
// same program throws, catches, uses typeid/dynamic_cast and std::array::at:
// that twin is what proves the checker flags what it should.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "dfx/collect.hpp"
#include "dfx/policy.hpp"

#if defined(DFX_DEVICE_LOOP_TWIN)
#if !defined(__cpp_exceptions) || !defined(__cpp_rtti)
#error "the twin must be built with exceptions and RTTI"
#endif
#include <stdexcept>
#include <typeinfo>
#else
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "device_loop.cpp must be built with -fno-exceptions"
#endif
#if defined(__cpp_rtti) || defined(__GXX_RTTI)
#error "device_loop.cpp must be built with -fno-rtti"
#endif
#endif

namespace {

constexpr std::uint32_t task_count = 48;
constexpr std::uint32_t core_count = 4;

// A fixed-capacity record buffer: never allocates, never throws, counts drops.
template <class Record, std::size_t Capacity>
struct fixed_buffer {
    std::array<Record, Capacity> records{};
    std::size_t size = 0;
    std::size_t dropped = 0;

    void push(const Record& record) noexcept {
        if (size < Capacity)
            records[size++] = record;
        else
            ++dropped;
    }
};

// The sink every role view writes to: one fixed array per record type.
struct fixed_sink {
    fixed_buffer<dfx::aicore_task_record, task_count> aicore;
    fixed_buffer<dfx::aicpu_task_record, task_count> aicpu;
    fixed_buffer<dfx::sched_phase_record, 4 * task_count> phases;
    fixed_buffer<dfx::orch_phase_record, task_count> orch;

    void push(const dfx::aicore_task_record& r) noexcept { aicore.push(r); }
    void push(const dfx::aicpu_task_record& r) noexcept { aicpu.push(r); }
    void push(const dfx::sched_phase_record& r) noexcept { phases.push(r); }
    void push(const dfx::orch_phase_record& r) noexcept { orch.push(r); }
};

using level4 = dfx::collectors<dfx::swimlane_level<4>>;
using set = dfx::collector_set<level4, dfx::tsc_clock, fixed_sink>;

static_assert(set::aicore_view::guards::timing);
static_assert(set::scheduler_view::guards::dispatch_finish && set::scheduler_view::guards::phases);
static_assert(set::orchestrator_view::guards::phases);
static_assert(!level4::aicore::pmu && level4::scheduler::dump_level == 0 && !level4::orchestrator::dep_gen);

fixed_sink sink;

// Stand-in for a kernel: some work the optimiser cannot drop.
volatile std::uint64_t kernel_state = 1;
void run_kernel(std::uint64_t task) noexcept {
    for (std::uint64_t i = 0; i < 64 + task % 16; ++i) kernel_state = kernel_state * 6364136223846793005ULL + i;
}

struct core_state {
    bool busy = false;
    std::uint64_t task = 0;
    std::uint32_t reg_task_id = 0;
    set::scheduler_view::stamp dispatched{};
};

int failures = 0;

#if defined(DFX_DEVICE_LOOP_TWIN)
struct loop_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
[[gnu::noinline]] void expect(bool ok, const char* what) {
    if (!ok) throw loop_error(what);
}
#else
void expect(bool ok, const char* what) noexcept {
    if (!ok) {
        std::printf("FAIL: %s\n", what);
        ++failures;
    }
}
#endif

void run_loop() {
    set collectors{&sink};
    auto orchestrator = collectors.orchestrator();
    auto scheduler = collectors.scheduler();
    std::array<set::aicore_view, core_count> workers{collectors.aicore(), collectors.aicore(), collectors.aicore(),
                                                     collectors.aicore()};
    std::array<core_state, core_count> cores{};

    std::array<std::uint64_t, task_count> ready{};
    std::uint32_t ready_head = 0;
    std::uint32_t ready_tail = 0;
    std::uint32_t submitted = 0;
    std::uint32_t completed = 0;
    std::uint32_t next_reg_task_id = 1;
    std::uint32_t iter = 0;

    auto depths = [&]() noexcept {
        return dfx::queue_depths{static_cast<std::int16_t>(ready_tail - ready_head), 0, 0};
    };

    while (completed < task_count) {
        // Orchestrator: submit a couple of tasks per scheduler iteration.
        for (int k = 0; k < 2 && submitted < task_count; ++k) {
            auto submit = orchestrator.submitting(submitted);
            ready[ready_tail++] = (std::uint64_t{0} << 32) | submitted;
            ++submitted;
        }

        // Scheduler: dispatch ready tasks to idle cores.
        {
            auto phase = scheduler.phase(dfx::sched_phase_kind::dispatch, iter, depths);
            std::uint32_t hit = 0;
            std::uint32_t miss = 0;
            std::uint32_t dispatched = 0;
            for (std::uint32_t c = 0; c < core_count; ++c) {
                if (cores[c].busy) continue;
                if (ready_head == ready_tail) {
                    ++miss;
                    continue;
                }
                ++hit;
                core_state& core = cores[c];
                core.task = ready[ready_head++];
                core.reg_task_id = next_reg_task_id++;
                core.dispatched = scheduler.dispatching();
                core.busy = true;
                workers[c].received(core.task, core.reg_task_id);
                ++dispatched;
            }
            phase.pops(hit, miss);
            phase.processed(dispatched);
            phase.depths_at_end(depths);
        }

        // Workers: each busy core runs its task.
        for (std::uint32_t c = 0; c < core_count; ++c) {
            if (!cores[c].busy) continue;
            workers[c].started();
            run_kernel(cores[c].task);
            workers[c].ended();
        }

        // Scheduler: observe completions.
        {
            auto phase = scheduler.phase(dfx::sched_phase_kind::complete, iter, depths);
            std::uint32_t done = 0;
            for (std::uint32_t c = 0; c < core_count; ++c) {
                if (!cores[c].busy) continue;
                scheduler.finished(c, cores[c].reg_task_id, cores[c].dispatched);
                cores[c].busy = false;
                ++done;
            }
            completed += done;
            phase.processed(done);
            phase.depths_at_end(depths);
        }
        ++iter;
    }

    // Level 4 records everything: one record per task per role, plus phases.
    expect(sink.aicore.size == task_count && sink.aicore.dropped == 0, "one AICore record per task");
    expect(sink.aicpu.size == task_count && sink.aicpu.dropped == 0, "one dispatch/finish record per task");
    expect(sink.orch.size == task_count && sink.orch.dropped == 0, "one orchestrator record per submit");
    expect(sink.phases.size == 2 * iter && sink.phases.dropped == 0, "two scheduler phases per iteration");

    std::uint32_t processed = 0;
    for (std::size_t i = 0; i < sink.phases.size; ++i) {
        const auto& p = sink.phases.records[i];
        expect(p.end >= p.start, "phase end >= start");
        if (p.kind == dfx::sched_phase_kind::dispatch) processed += p.tasks_processed;
    }
    expect(processed == task_count, "dispatch phases processed every task");

    for (std::size_t i = 0; i < sink.orch.size; ++i) {
        const auto& o = sink.orch.records[i];
        expect(o.submit_idx == i && o.task_id == i, "submits numbered in order");
        expect(o.end >= o.start, "submit end >= start");
    }
    for (std::size_t i = 0; i < sink.aicore.size; ++i) {
        const auto& a = sink.aicore.records[i];
        expect(a.end >= a.start, "AICore end >= start");
        // The join key: the dispatch record of the same reg_task_id brackets the execution.
        bool joined = false;
        for (std::size_t j = 0; j < sink.aicpu.size; ++j) {
            const auto& d = sink.aicpu.records[j];
            if (d.reg_task_id != a.reg_task_id) continue;
            joined = d.dispatch <= a.start && a.end <= d.finish;
        }
        expect(joined, "every AICore record joins its dispatch record, which brackets it");
    }

#if defined(DFX_DEVICE_LOOP_TWIN)
    // Bounds-checked access: pulls in std::__throw_out_of_range_fmt.
    std::array<std::uint32_t, core_count> per_core{};
    for (std::size_t i = 0; i < sink.aicpu.size; ++i) per_core.at(sink.aicpu.records[i].core) += 1;
#endif

    const std::uint64_t hz = dfx::tsc_clock::frequency_hz();
    const std::uint64_t first = sink.orch.records[0].start;
    const std::uint64_t last = sink.aicpu.records[sink.aicpu.size - 1].finish;
    std::printf("device loop: %u tasks on %u cores in %u scheduler iterations\n", task_count, core_count, iter);
    std::printf("records: %zu aicore, %zu dispatch/finish, %zu sched phases, %zu orch phases\n", sink.aicore.size,
                sink.aicpu.size, sink.phases.size, sink.orch.size);
    std::printf("span: %llu ticks = %.1f us at %llu Hz\n", static_cast<unsigned long long>(last - first),
                hz ? static_cast<double>(last - first) * 1e6 / static_cast<double>(hz) : 0.0,
                static_cast<unsigned long long>(hz));
}

}  // namespace

int main() {
#if defined(DFX_DEVICE_LOOP_TWIN)
    try {
        run_loop();
    } catch (const std::exception& e) {
        const auto* mine = dynamic_cast<const loop_error*>(&e);
        std::printf("FAIL (%s%s): %s\n", mine ? "loop_error " : "", typeid(e).name(), e.what());
        return 1;
    }
#else
    run_loop();
#endif
    if (failures != 0) {
        std::printf("%d check(s) failed\n", failures);
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
