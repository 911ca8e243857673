// Out-of-line sink for the sample loops: each push copies the record into a
// small ring with external linkage, so neither the call nor the copy can be
// optimised away. Compiled once, without any variant macro.
#include "sample_sink.hpp"

#include <cstddef>

#include "sample_loops.hpp"

template <class Record>
struct dfx_zc_ring {
    static constexpr std::size_t capacity = 256;
    Record slots[capacity];
    std::uint64_t count;
    void put(const Record& record) noexcept { slots[count++ % capacity] = record; }
};

dfx_zc_ring<dfx::aicore_task_record> dfx_zc_aicore_ring;
dfx_zc_ring<dfx::aicpu_task_record> dfx_zc_aicpu_ring;
dfx_zc_ring<dfx::sched_phase_record> dfx_zc_sched_ring;
dfx_zc_ring<dfx::orch_phase_record> dfx_zc_orch_ring;
dfx_zc_ring<dfx::dep_gen_record> dfx_zc_dep_gen_ring;
dfx_zc_ring<dfx::scope_stats_record> dfx_zc_scope_ring;

dfx_zc_sink dfx_zc_the_sink;
volatile std::uint32_t dfx_zc_sabotage_cell;

void dfx_zc_sink::push(const dfx::aicore_task_record& record) noexcept { dfx_zc_aicore_ring.put(record); }
void dfx_zc_sink::push(const dfx::aicpu_task_record& record) noexcept { dfx_zc_aicpu_ring.put(record); }
void dfx_zc_sink::push(const dfx::sched_phase_record& record) noexcept { dfx_zc_sched_ring.put(record); }
void dfx_zc_sink::push(const dfx::orch_phase_record& record) noexcept { dfx_zc_orch_ring.put(record); }
void dfx_zc_sink::push(const dfx::dep_gen_record& record) noexcept { dfx_zc_dep_gen_ring.put(record); }
void dfx_zc_sink::push(const dfx::scope_stats_record& record) noexcept { dfx_zc_scope_ring.put(record); }

extern "C" std::uint64_t dfx_zc_records_pushed() noexcept {
    return dfx_zc_aicore_ring.count + dfx_zc_aicpu_ring.count + dfx_zc_sched_ring.count +
           dfx_zc_orch_ring.count + dfx_zc_dep_gen_ring.count + dfx_zc_scope_ring.count;
}
