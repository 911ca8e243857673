// The host half of dep_gen: one channel from the orchestrator, and
// <prefix>/deps.json replayed from what it captured. A graph with a lost
// record would be wrong in ways nobody could see, so after any loss no
// deps.json is written and the reason is returned instead.
//
//   dfx::dep_gen_host deps(channels);
//   deps.start(); ...run...; deps.stop();
//   auto written = deps.write(prefix);   // written.path, or written.refused with the reason
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <filesystem>
#include <string>
#include <vector>

#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/deps_json.hpp"
#include "dfx/output/dep_gen_stream.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/transport/packed_records.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

struct deps_written {
    std::filesystem::path path;  // empty when nothing was written
    std::string refused;         // why not, when nothing was written
};

template <class MemoryOps>
class dep_gen_host {
public:
    // `size` counts records of the largest size (a 4 KiB slot): the default
    // {4, 32} is 4 buffers of 128 KiB, which hold some 400 submits of three
    // tensors each.
    explicit dep_gen_host(channel_registry& channels, channel_size size = {4, 32}, transport_options options = {})
        : transport_(options) {
        auto ref = transport_.template add_channel<dep_gen_record>(
            "dep_gen", 0, size.buffers, size.records_per_buffer,
            [this](packed_records<dep_gen_record> records) { collect(records); });
        if (!ref.device_block) throw output_error("dep_gen: cannot allocate its buffers");
        channels.add(0, ref);
    }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }
    // The collected records, as read_dep_gen_submits / replay_dep_gen take them (dep_gen_stream.hpp).
    std::span<const std::byte> stream() const noexcept { return stream_.bytes(); }

    // After stop(). Throws output_error, naming the problem, when the capture
    // stream is malformed (a bug: a buffer the producer did not write whole,
    // or records that do not make whole submits) or the file cannot be written.
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
        if (!malformed_.empty()) throw output_error(malformed_);
        return {write_deps_json_file(prefix, stream_.bytes()), {}};
    }

private:
    // On the drain thread: each record of the buffer, header and payload,
    // appended to stream_. A buffer the cursor cannot walk to its end
    // (records running past its bytes) keeps what came before and is reported
    // by write(), which then writes nothing.
    void collect(packed_records<dep_gen_record> records) {
        packed_cursor<dep_gen_record> at(records);
        for (; const dep_gen_record* r = at.peek(); at.advance()) append_dep_gen_record(stream_, *r);
        if (!at.intact() && malformed_.empty())
            malformed_ = detail::message({"malformed dep_gen buffer: ", records.count, " records committed in ",
                                          records.size, " bytes, but they cannot be walked past byte ", at.offset(),
                                          " (a record runs past the buffer or claims more than its 4096-byte slot)"});
    }

    append_buffer stream_;
    std::string malformed_;  // why the stream cannot be trusted; empty when it can
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain thread writes stream_
};

}  // namespace dfx
