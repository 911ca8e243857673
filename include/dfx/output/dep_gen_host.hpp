// The host half of dep_gen: one channel from the orchestrator, and
// <prefix>/deps.json replayed from what it captured. A graph with a lost
// record would be wrong in ways nobody could see, so after any loss no
// deps.json is written and the reason is returned instead.
//
//   dfx::dep_gen_host deps(channels);
//   deps.start(); ...run...; deps.stop();
//   auto written = deps.write(prefix);   // written.path, or written.refused with the reason
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/deps_json.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

struct deps_written {
    std::filesystem::path path;  // empty when nothing was written
    std::string refused;         // why not, when nothing was written
};

template <class MemoryOps>
class dep_gen_host {
public:
    explicit dep_gen_host(channel_registry& channels, channel_size size = {4, 1024}, transport_options options = {})
        : transport_(options) {
        auto ref = transport_.template add_channel<dep_gen_record>(
            "dep_gen", 0, size.buffers, size.records_per_buffer,
            [this](std::span<const dep_gen_record> rs) { records_.insert(records_.end(), rs.begin(), rs.end()); });
        if (!ref.device_block) throw output_error("dep_gen: cannot allocate its buffers");
        channels.add(0, ref);
    }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }
    const std::vector<dep_gen_record>& records() const noexcept { return records_; }

    // After stop(). Throws output_error, naming the problem, when the capture
    // stream is malformed (a bug) or the file cannot be written.
    deps_written write(const std::filesystem::path& prefix) const {
        const channel_report r = transport_.report().front();
        if (r.unfinished())
            return {{},
                    detail::message({"deps.json not written: the orchestrator's dep_gen producer never finished (a "
                                     "sink still alive when collection stopped), so ",
                                     r.lost(), " records were lost and any later submits are missing"})};
        if (r.dropped > 0 || !r.balanced())
            return {{},
                    detail::message({"deps.json not written: ", r.produced - r.collected, " of ", r.produced,
                                     " dep_gen records were lost, and a graph with missing tasks or edges would mislead"})};
        return {write_deps_json_file(prefix, records_), {}};
    }

private:
    std::vector<dep_gen_record> records_;
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain thread writes records_
};

}  // namespace dfx
