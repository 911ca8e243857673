// The host half of scope stats: one channel from the orchestrator, the ring
// capacities the runtime registers, and scope_stats/scope_stats.jsonl.
//
//   dfx::scope_stats_host host(channels);
//   host.set_ring_capacity(ring, window, heap_bytes, dep_pool);  host.set_tensormap_capacity(n);
//   host.start(); ...run...; host.stop();
//   host.write(prefix);
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "dfx/output/append_buffer.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/output/scope_stats_jsonl.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

template <class MemoryOps>
class scope_stats_host {
public:
    // The reference's capacity: 4 buffers of 512 records.
    explicit scope_stats_host(channel_registry& channels, channel_size size = {4, 512}, transport_options options = {})
        : transport_(options) {
        auto ref = transport_.template add_channel<scope_stats_record>(
            "scope stats", 0, size.buffers, size.records_per_buffer,
            [this](std::span<const scope_stats_record> rs) { records_.append(rs); });
        if (!ref.device_block) throw output_error("scope stats: cannot allocate its buffers");
        channels.add(0, ref);
    }

    void set_ring_capacity(int ring, std::int32_t task_window, std::uint64_t heap_bytes, std::int32_t dep_pool) {
        if (ring < 0 || ring >= scope_ring_count)
            throw output_error("scope stats: ring in [0, 3] expected, got " + std::to_string(ring));
        const auto r = static_cast<std::size_t>(ring);
        capacities_.task_window[r] = task_window;
        capacities_.heap[r] = heap_bytes;
        capacities_.dep_pool[r] = dep_pool;
    }
    void set_tensormap_capacity(std::int32_t entries) { capacities_.tensormap = entries; }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }

    // After stop(). The fatal latch travels as a marker record, so it is not
    // counted as a boundary.
    scope_stats_capture_summary summary() const {
        scope_stats_capture_summary s;
        s.capacities = capacities_;
        const auto r = transport_.report().front();
        std::uint64_t markers = 0;
        for (const auto& rec : records()) markers += rec.phase == scope_phase::fatal;
        s.fatal = markers > 0;
        s.dropped = r.dropped;
        s.total = r.produced - markers;
        return s;
    }
    std::span<const scope_stats_record> records() const noexcept { return records_.as<scope_stats_record>(); }

    std::filesystem::path write(const std::filesystem::path& prefix) const {
        return write_scope_stats_file(prefix, summary(), records());
    }

private:
    ring_capacities capacities_;
    append_buffer records_;
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain thread writes records_
};

}  // namespace dfx
