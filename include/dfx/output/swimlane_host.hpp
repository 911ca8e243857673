// The host half of the chip swimlane collector: allocates the channels the
// level needs (and no others), collects the records, accounts for them, and
// writes chip_swimlane_records.json.
//
//   dfx::channel_registry channels;
//   dfx::swimlane_host host(level, layout, channels);
//   host.start();
//   // per thread, with the sink type its guards call for (collect/role_sinks.hpp):
//   auto sink = channels.sink<dfx::aicore_sink<G, dfx::block<>>>(core);
//   ...run; the sinks finish when their threads end...
//   host.stop();
//   dfx::write_accounting(stderr, "chip swimlane", host.report());
//   host.write(prefix);
//
// The host side is not on the hot path, so the level is a run-time value
// here; the stamping views and their sinks are the typed part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/chip_swimlane_json.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

template <class MemoryOps>
class swimlane_host {
public:
    swimlane_host(int level, swimlane_layout layout, channel_registry& channels, transport_options options = {})
        : level_(level), layout_(std::move(layout)), transport_(options) {
        if (level_ < 1 || level_ > 4)
            detail::throw_output_error({"chip swimlane: collection level in [1, 4] expected, got ", level_});
        if (layout_.core_types.empty()) throw output_error("chip swimlane: the layout has no cores");
        if (layout_.scheduler_threads == 0 || layout_.scheduler_threads > layout_.scheduler_pools)
            detail::throw_output_error({"chip swimlane: scheduler_threads must be in [1, scheduler_pools (",
                                        layout_.scheduler_pools, ")], got ", layout_.scheduler_threads});
        capture_.level = level_;
        capture_.clock_freq_hz = layout_.clock_freq_hz;
        capture_.core_types = layout_.core_types;
        const std::size_t cores = layout_.core_types.size();
        capture_.aicore.resize(cores);
        capture_.aicpu.resize(cores);
        aicpu_by_thread_.resize(layout_.scheduler_threads);

        for (std::uint32_t core = 0; core < cores; ++core)
            channels.add(core, add<aicore_task_record>("chip swimlane aicore", core, layout_.aicore, capture_.aicore[core]));
        if (level_ >= 2)
            for (std::uint32_t t = 0; t < layout_.scheduler_threads; ++t)
                channels.add(t, add<aicpu_task_record>("chip swimlane aicpu", t, layout_.aicpu, aicpu_by_thread_[t]));
        if (level_ >= 3) {
            capture_.scheduler_phases.resize(layout_.scheduler_pools);
            capture_.core_to_thread.assign(cores, -1);
            for (std::uint32_t t = 0; t < layout_.scheduler_threads; ++t)
                channels.add(t, add<sched_phase_record>("chip swimlane scheduler phases", t, layout_.sched_phases,
                                                        capture_.scheduler_phases[t]));
        }
        if (level_ >= 4) {
            capture_.orchestrator_phases.resize(layout_.orchestrator_lanes);
            for (std::uint32_t lane = 0; lane < layout_.orchestrator_lanes; ++lane)
                channels.add(lane, add<orch_phase_record>("chip swimlane orchestrator phases", lane,
                                                          layout_.orch_phases, capture_.orchestrator_phases[lane]));
        }
    }

    int level() const noexcept { return level_; }
    std::size_t channel_count() const noexcept { return transport_.channel_count(); }

    // Which scheduler thread owns each core (written at level >= 3).
    void set_core_to_thread(std::vector<int> map) {
        if (level_ >= 3) {
            map.resize(capture_.core_types.size(), -1);
            capture_.core_to_thread = std::move(map);
        }
    }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }

    // After stop(): everything captured, AICPU rows regrouped by core.
    const swimlane_capture& capture() {
        if (!regrouped_) {
            for (const auto& per_thread : aicpu_by_thread_)
                for (const auto& r : per_thread)
                    if (r.core < capture_.aicpu.size()) capture_.aicpu[r.core].push_back(r);
            regrouped_ = true;
        }
        return capture_;
    }

    // Writes <prefix>/chip_swimlane_records.json (nothing when nothing was
    // captured); returns the path written, or an empty path.
    std::filesystem::path write(const std::filesystem::path& prefix) {
        return write_chip_swimlane_records(prefix, capture());
    }

private:
    // One channel whose records are appended to `into`. The record type
    // stays here; what does not depend on it is add_bytes, compiled once for
    // the four record types.
    template <class Record>
    channel_ref<Record> add(const char* name, std::uint32_t index, channel_size size, std::vector<Record>& into) {
        return {add_bytes(name, index, size, sizeof(Record), &append<Record>, &into)};
    }

    template <class Record>
    static void append(void* into, const std::byte* bytes, std::uint32_t count) {
        const Record* records = reinterpret_cast<const Record*>(bytes);
        auto& v = *static_cast<std::vector<Record>*>(into);
        v.insert(v.end(), records, records + count);
    }

    void* add_bytes(const char* name, std::uint32_t index, channel_size size, std::uint32_t record_size,
                    void (*append_to)(void*, const std::byte*, std::uint32_t), void* into) {
        void* block = transport_.add_byte_channel(name, index, size.buffers, size.records_per_buffer, record_size,
                                                  {append_to, into});
        if (!block)
            detail::throw_output_error({name, ": cannot allocate ",
                                        std::uint64_t{size.buffers} * size.records_per_buffer * record_size,
                                        " bytes of buffers"});
        return block;
    }

    int level_;
    swimlane_layout layout_;
    swimlane_capture capture_;
    std::vector<std::vector<aicpu_task_record>> aicpu_by_thread_;
    bool regrouped_ = false;
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain threads write into the vectors above
};

}  // namespace dfx
