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
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/append_buffer.hpp"
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
        const std::uint32_t cores = static_cast<std::uint32_t>(layout_.core_types.size());
        // One byte group per channel, laid out before any channel points into it.
        aicore_ = {0, cores};
        aicpu_ = {aicore_.end(), level_ >= 2 ? layout_.scheduler_threads : 0};
        sched_ = {aicpu_.end(), level_ >= 3 ? layout_.scheduler_pools : 0};
        orch_ = {sched_.end(), level_ >= 4 ? layout_.orchestrator_lanes : 0};
        bytes_.resize(orch_.end());
        if (level_ >= 3) core_to_thread_.assign(cores, -1);

        for (std::uint32_t core = 0; core < cores; ++core)
            channels.add(core, add<aicore_task_record>("chip swimlane aicore", core, layout_.aicore, aicore_));
        for (std::uint32_t t = 0; t < aicpu_.count; ++t)
            channels.add(t, add<aicpu_task_record>("chip swimlane aicpu", t, layout_.aicpu, aicpu_));
        // Every pool is written; only the live scheduler threads have channels.
        if (level_ >= 3)
            for (std::uint32_t t = 0; t < layout_.scheduler_threads; ++t)
                channels.add(t, add<sched_phase_record>("chip swimlane scheduler phases", t, layout_.sched_phases, sched_));
        for (std::uint32_t lane = 0; lane < orch_.count; ++lane)
            channels.add(lane, add<orch_phase_record>("chip swimlane orchestrator phases", lane, layout_.orch_phases, orch_));
    }

    int level() const noexcept { return level_; }
    std::size_t channel_count() const noexcept { return transport_.channel_count(); }

    // Which scheduler thread owns each core (written at level >= 3).
    void set_core_to_thread(std::vector<int> map) {
        if (level_ >= 3) {
            map.resize(layout_.core_types.size(), -1);
            core_to_thread_ = std::move(map);
        }
    }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }

    // After stop(): everything captured, AICPU rows regrouped by core (a
    // core outside the layout is left out), as one swimlane_capture.
    swimlane_capture capture() const {
        swimlane_capture c;
        c.level = level_;
        c.clock_freq_hz = layout_.clock_freq_hz;
        c.core_types = layout_.core_types;
        c.core_to_thread = core_to_thread_;
        c.aicore = records_of<aicore_task_record>(aicore_);
        c.aicpu.resize(layout_.core_types.size());
        for (const auto& per_thread : records_of<aicpu_task_record>(aicpu_))
            for (const auto& r : per_thread)
                if (r.core < c.aicpu.size()) c.aicpu[r.core].push_back(r);
        c.scheduler_phases = records_of<sched_phase_record>(sched_);
        c.orchestrator_phases = records_of<orch_phase_record>(orch_);
        return c;
    }

    // Writes <prefix>/chip_swimlane_records.json (nothing when nothing was
    // captured); returns the path written, or an empty path. Written from
    // the channels' bytes: the host builds no vector per record type.
    std::filesystem::path write(const std::filesystem::path& prefix) const {
        std::vector<swimlane_rows::group> groups;
        groups.reserve(bytes_.size());
        for (const auto& g : bytes_) groups.emplace_back(g.bytes.data(), g.bytes.size());
        const std::span<const swimlane_rows::group> all(groups);
        return write_chip_swimlane_records(prefix, swimlane_rows{.level = level_,
                                                                 .clock_freq_hz = layout_.clock_freq_hz,
                                                                 .core_types = layout_.core_types,
                                                                 .core_to_thread = core_to_thread_,
                                                                 .aicore = aicore_.of(all),
                                                                 .aicpu = aicpu_.of(all),
                                                                 .aicpu_by_thread = true,
                                                                 .scheduler_phases = sched_.of(all),
                                                                 .orchestrator_phases = orch_.of(all)});
    }

private:
    // One channel's records, as bytes; one type whatever the record type.
    struct byte_group {
        append_buffer bytes;
        std::uint32_t record_size = 0;
    };
    // Where one record type's groups are in bytes_.
    struct group_range {
        std::uint32_t first = 0, count = 0;
        std::uint32_t end() const noexcept { return first + count; }
        std::span<const swimlane_rows::group> of(std::span<const swimlane_rows::group> all) const noexcept {
            return all.subspan(first, count);
        }
    };

    // One channel whose records are appended to group `index` of `range`.
    // The record type stays here; what does not depend on it is add_bytes,
    // compiled once for the four record types.
    template <class Record>
    channel_ref<Record> add(const char* name, std::uint32_t index, channel_size size, group_range range) {
        byte_group& into = bytes_[range.first + index];
        into.record_size = sizeof(Record);
        return {add_bytes(name, index, size, sizeof(Record), &into)};
    }

    static void append(void* into, const std::byte* bytes, std::uint32_t count, std::uint32_t /*packed bytes*/) {
        auto& g = *static_cast<byte_group*>(into);
        g.bytes.append(bytes, std::size_t{count} * g.record_size);
    }

    void* add_bytes(const char* name, std::uint32_t index, channel_size size, std::uint32_t record_size, void* into) {
        void* block = transport_.add_byte_channel(name, index, size.buffers, size.records_per_buffer, record_size,
                                                  {&append, into});
        if (!block)
            detail::throw_output_error({name, ": cannot allocate ",
                                        std::uint64_t{size.buffers} * size.records_per_buffer * record_size,
                                        " bytes of buffers"});
        return block;
    }

    // A range's groups as vectors of records (for capture(), off the write path).
    template <class Record>
    std::vector<std::vector<Record>> records_of(group_range range) const {
        std::vector<std::vector<Record>> out(range.count);
        for (std::uint32_t i = 0; i < range.count; ++i) {
            const append_buffer& b = bytes_[range.first + i].bytes;
            out[i].resize(b.size() / sizeof(Record));
            if (!b.empty()) std::memcpy(out[i].data(), b.data(), out[i].size() * sizeof(Record));
        }
        return out;
    }

    int level_;
    swimlane_layout layout_;
    std::vector<int> core_to_thread_;  // level >= 3: one entry per core, -1 = no thread
    std::vector<byte_group> bytes_;    // aicore per core, aicpu per thread, phases per pool, per lane
    group_range aicore_, aicpu_, sched_, orch_;
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain threads write into bytes_
};

}  // namespace dfx
