// The host half of PMU collection: one channel per AICore, pmu.csv at the
// end, and a report that says which counter source produced the numbers.
//
//   dfx::channel_registry channels;
//   dfx::pmu_host host(event, {.core_to_thread = {0, 0, 1, 1}}, channels);
//   host.start();
//   // per core, on its worker thread:
//   dfx::host_pmu_source source{core};  source.open(dfx::pmu_event_id{event});
//   auto sink = channels.sink<dfx::aicore_sink<G, dfx::block<>>>(core);
//   dfx::aicore_view<G, Clock, decltype(sink), dfx::host_pmu_source> view{&sink, &source};
//   ...view.pmu_begin(); kernel(); view.pmu_end(task_id, func_id, core_type)...
//   host.stop();
//   dfx::write_accounting(stderr, "PMU", host.report());
//   dfx::write_pmu_report(stderr, host.summary());   // which counter source was used, and why
//   host.write(prefix);                              // <prefix>/pmu.csv
//
// Every record names the source that counted it (record/pmu_record.hpp), so
// the report is what actually happened on each core, not what was asked for.
#pragma once

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/append_buffer.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/output/pmu_csv.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

inline constexpr int pmu_source_kinds = 4;

struct pmu_summary {
    int event = 0;
    std::uint64_t rows = 0;
    std::uint64_t dropped = 0;
    std::array<std::uint64_t, pmu_source_kinds> rows_by_source{};   // index: pmu_source_kind
    std::array<std::uint32_t, pmu_source_kinds> cores_by_source{};  // cores with at least one row from that source
    std::uint16_t refused_errno = 0;       // why the preferred source was refused (first seen), 0 if never
    std::uint8_t unavailable_columns = 0;  // union over the rows: slots with no counter, written as 0
};

inline const char* pmu_source_name(pmu_source_kind kind) noexcept {
    switch (kind) {
        case pmu_source_kind::none: return "none (the AICore view was given no counter source: zeros)";
        case pmu_source_kind::device: return "device";
        case pmu_source_kind::perf_event: return "perf_event_open";
        case pmu_source_kind::simulated: return "simulated (deterministic counts, not measurements)";
    }
    return "unknown";
}

// What was counted, by which source, and what could not be.
inline void write_pmu_report(std::FILE* out, const pmu_summary& s) {
    const auto id = static_cast<pmu_event_id>(s.event);
    std::fprintf(out, "PMU (event %d %.*s): %" PRIu64 " rows, %" PRIu64 " dropped\n", s.event,
                 static_cast<int>(pmu_event_name(id).size()), pmu_event_name(id).data(), s.rows, s.dropped);
    for (int k = 0; k < pmu_source_kinds; ++k)
        if (s.rows_by_source[static_cast<std::size_t>(k)] > 0)
            std::fprintf(out, "  counter source: %s: %" PRIu64 " rows on %u cores\n",
                         pmu_source_name(static_cast<pmu_source_kind>(k)), s.rows_by_source[static_cast<std::size_t>(k)],
                         s.cores_by_source[static_cast<std::size_t>(k)]);
    if (s.refused_errno != 0)
        std::fprintf(out, "  perf_event_open was refused (errno %u: %s), so the fallback source counted\n",
                     unsigned{s.refused_errno}, std::strerror(s.refused_errno));
    if (s.unavailable_columns != 0) {
        std::fprintf(out, "  no counter on this host for:");
        const pmu_counter_names names = pmu_counters(id);
        for (int i = 0; i < pmu_counter_slots; ++i)
            if ((s.unavailable_columns >> i) & 1u)
                std::fprintf(out, " %.*s", static_cast<int>(names[static_cast<std::size_t>(i)].size()),
                             names[static_cast<std::size_t>(i)].data());
        std::fprintf(out, " (written as 0)\n");
    }
}

template <class MemoryOps>
class pmu_host {
public:
    pmu_host(int event, pmu_layout layout, channel_registry& channels, transport_options options = {})
        : event_(event), layout_(std::move(layout)), transport_(options) {
        if (event_ == 0 || !is_pmu_event(event_))
            throw output_error("PMU: event type 1, 2, 4, 5, 6, 7 or 8 expected, got " + std::to_string(event_));
        if (layout_.core_to_thread.empty()) throw output_error("PMU: the layout has no cores");
        records_.resize(layout_.core_to_thread.size());
        for (std::uint32_t core = 0; core < records_.size(); ++core) {
            auto& into = records_[core];
            auto ref = transport_.template add_channel<pmu_record>(
                "PMU", core, layout_.size.buffers, layout_.size.records_per_buffer,
                [&into](std::span<const pmu_record> rs) { into.append(rs); });
            if (!ref.device_block) throw output_error("PMU: cannot allocate the buffers of core " + std::to_string(core));
            channels.add(core, ref);
        }
    }

    // From the policy type selection hands the host (config/selection.hpp: select_host).
    template <int Id>
    pmu_host(pmu_event<Id>, pmu_layout layout, channel_registry& channels, transport_options options = {})
        : pmu_host(Id, std::move(layout), channels, options) {
        static_assert(Id != 0, "dfx::pmu_host: PMU is off (pmu_event<0>): there is nothing to collect");
    }

    int event() const noexcept { return event_; }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }

    // After stop(): grouped by (thread, core), each core's rows in the order it produced them.
    std::vector<pmu_row> rows() const {
        std::vector<std::uint32_t> cores(records_.size());
        for (std::uint32_t c = 0; c < cores.size(); ++c) cores[c] = c;
        std::stable_sort(cores.begin(), cores.end(), [this](std::uint32_t a, std::uint32_t b) {
            return layout_.core_to_thread[a] < layout_.core_to_thread[b];
        });
        std::vector<pmu_row> out;
        for (std::uint32_t core : cores)
            for (const auto& r : records_[core].as<pmu_record>()) out.push_back({layout_.core_to_thread[core], core, r});
        return out;
    }

    pmu_summary summary() const {
        pmu_summary s;
        s.event = event_;
        for (const auto& c : transport_.report()) s.dropped += c.dropped;
        for (const auto& per_core : records_) {
            std::array<bool, pmu_source_kinds> seen{};
            for (const auto& r : per_core.as<pmu_record>()) {
                const auto k = static_cast<std::size_t>(r.source) < pmu_source_kinds ? static_cast<std::size_t>(r.source) : 0;
                ++s.rows;
                ++s.rows_by_source[k];
                seen[k] = true;
                if (s.refused_errno == 0) s.refused_errno = r.refused_errno;
                s.unavailable_columns |= r.unavailable_columns;
            }
            for (std::size_t k = 0; k < seen.size(); ++k) s.cores_by_source[k] += seen[k] ? 1 : 0;
        }
        return s;
    }

    // <prefix>/pmu.csv, or nothing when no row was collected.
    std::filesystem::path write(const std::filesystem::path& prefix) const {
        return write_pmu_csv_file(prefix, static_cast<pmu_event_id>(event_), rows());
    }

private:
    int event_;
    pmu_layout layout_;
    std::vector<append_buffer> records_;  // per core
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain threads write records_
};

}  // namespace dfx
