// The host half of the args dump: per scheduler thread a channel of call
// records (one per capture call, record/args_call_record.hpp) and a channel
// of payload chunks; the chunks stream into args.bin as they are drained
// (output/args_bin_stream.hpp), the call records are checked and kept as
// they come (a few bytes an argument), and at the end they are decoded into
// argument records (output/args_call_decoder.hpp) and args_dump.json is
// written with every argument resolved against the file.
//
//   dfx::channel_registry channels;
//   dfx::args_dump_host host(level, prefix, {.scheduler_threads = n}, channels);
//   host.start();
//   // per scheduler thread (collect/role_sinks.hpp):
//   auto sink = channels.sink<dfx::scheduler_sink<G, dfx::block<>>>(t);
//   ...view.before_dispatch(...) / view.after_completion(...)...
//   host.stop();
//   dfx::write_accounting(stderr, "args dump", host.report());
//   dfx::write_args_dump_report(stderr, host.summary());
//   host.write();     // <prefix>/args_dump/args_dump.json and args.bin
//
// The prefix is given up front, unlike the other collectors' write(prefix):
// payload bytes go to disk while the run goes, so a dump larger than memory
// is fine. Nothing captured (level 1 with no marks) writes nothing.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/output/append_buffer.hpp"
#include "dfx/output/args_call_decoder.hpp"
#include "dfx/output/args_bin_stream.hpp"
#include "dfx/output/args_dump_json.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/policy/dump_level.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

// What the run captured and lost, for the report and the tests.
struct args_dump_summary {
    int level = 0;
    std::uint64_t args = 0;               // argument records collected (entries in args_dump.json)
    std::uint64_t dropped_records = 0;    // arguments lost in transport (with the call records that held them)
    std::uint64_t dropped_chunks = 0;     // payload chunks lost in transport
    std::uint64_t lost_payloads = 0;      // arguments whose bytes did not all reach args.bin ("overwritten")
    std::uint64_t truncated = 0;          // tensors larger than the arena
    std::uint64_t malformed_calls = 0;    // call records that did not decode (their arguments are missing)
    std::uint64_t bin_bytes = 0;          // size of args.bin
    std::string write_error;              // the first args.bin I/O error, if any
    std::string malformed_error;          // why the first malformed call record did not decode
};

// One line of totals, and one per kind of loss.
inline void write_args_dump_report(std::FILE* out, const args_dump_summary& s) {
    std::fprintf(out, "args dump (level %d): %" PRIu64 " arguments, %" PRIu64 " bytes in args.bin, %" PRIu64
                      " truncated\n",
                 s.level, s.args, s.bin_bytes, s.truncated);
    if (s.dropped_records > 0)
        std::fprintf(out, "  LOST %" PRIu64 " arguments in transport (\"dropped_records\" in args_dump.json)\n",
                     s.dropped_records);
    if (s.malformed_calls > 0)
        std::fprintf(out, "  LOST the arguments of %" PRIu64 " call records that did not decode: %s\n", s.malformed_calls,
                     s.malformed_error.c_str());
    if (s.lost_payloads > 0 || s.dropped_chunks > 0)
        std::fprintf(out,
                     "  LOST the bytes of %" PRIu64 " arguments (%" PRIu64 " payload chunks dropped); they are marked "
                     "\"overwritten\" with bin_size 0\n",
                     s.lost_payloads, s.dropped_chunks);
    if (!s.write_error.empty()) std::fprintf(out, "  ERROR %s\n", s.write_error.c_str());
}

template <class MemoryOps>
class args_dump_host {
public:
    args_dump_host(int level, std::filesystem::path prefix, args_dump_layout layout, channel_registry& channels,
                   transport_options options = {})
        : level_(level), prefix_(std::move(prefix)), layout_(layout), transport_(options) {
        if (level_ < 1 || level_ > 2)
            throw output_error("args dump: dump level in [1, 2] expected, got " + std::to_string(level_));
        if (layout_.scheduler_threads == 0) throw output_error("args dump: the layout has no scheduler threads");
        if (layout_.payload.buffers == 0 || layout_.payload.records_per_buffer == 0)
            throw output_error("args dump: the payload arena must not be empty");
        const auto dir = prefix_ / schema::args_dump_dir;
        created_dir_ = !std::filesystem::exists(dir);
        bin_ = std::make_unique<args_bin_stream>(dir / schema::args_bin_file, layout_.scheduler_threads);
        calls_ = std::vector<thread_calls>(layout_.scheduler_threads);
        for (std::uint32_t t = 0; t < layout_.scheduler_threads; ++t) {
            auto records = transport_.template add_channel<args_call_record>(
                records_channel, t, layout_.records.buffers, layout_.records.records_per_buffer,
                [this, t](packed_records<args_call_record> calls) { keep(t, calls); });
            auto payload = transport_.template add_channel<args_payload_chunk>(
                payload_channel, t, layout_.payload.buffers, layout_.payload.records_per_buffer,
                [bin = bin_.get(), t](packed_records<args_payload_chunk> chunks) { bin->consume(t, chunks); });
            if (!records.device_block || !payload.device_block)
                throw output_error("args dump: cannot allocate the buffers of scheduler thread " + std::to_string(t));
            channels.add(t, records);
            channels.add(t, payload);
        }
    }

    // From the policy type selection hands the host (config/selection.hpp: select_host).
    template <int Level>
    args_dump_host(dump_level<Level>, std::filesystem::path prefix, args_dump_layout layout, channel_registry& channels,
                   transport_options options = {})
        : args_dump_host(Level, std::move(prefix), layout, channels, options) {
        static_assert(Level != 0, "dfx::args_dump_host: the dump is off (dump_level<0>): there is nothing to collect");
    }

    ~args_dump_host() {
        transport_.stop();  // no drain thread may touch the file past this point
        bin_->discard();    // an uncommitted file is not an artefact
        remove_dir_if_empty();
    }

    int level() const noexcept { return level_; }
    // Bytes in the payload arena of each thread: tensors above it are truncated to half.
    std::uint64_t arena_bytes() const noexcept {
        return std::uint64_t{layout_.payload.buffers} * layout_.payload.records_per_buffer * args_payload_chunk_bytes;
    }

    void start() { transport_.start(); }
    void stop() { transport_.stop(); }
    std::vector<channel_report> report() const { return transport_.report(); }

    // Live while the run goes: payload bytes already in args.bin.
    std::uint64_t payload_bytes_written() const noexcept { return bin_->bytes_written(); }

    // After stop(): every argument collected, resolved against args.bin, in
    // the reference's order.
    std::vector<args_dump_entry> entries() const {
        std::size_t count = 0;
        for (const thread_calls& kept : calls_) count += kept.args;
        std::vector<args_dump_entry> out;
        out.reserve(count);
        for (std::uint32_t t = 0; t < calls_.size(); ++t)
            for_each_arg(t, [&](const args_dump_record& r) { out.push_back(resolve(t, r)); });
        sort_args_dump(out);
        return out;
    }

    // After stop(). Counts what entries() would hold without building it.
    args_dump_summary summary() const {
        args_dump_summary s;
        s.level = level_;
        s.dropped_records = dropped_items(records_channel);
        for (const thread_calls& kept : calls_) {
            s.malformed_calls += kept.malformed;
            if (s.malformed_error.empty() && kept.first_error) s.malformed_error = kept.first_error;
        }
        s.dropped_chunks = dropped(payload_channel);
        for (std::uint32_t t = 0; t < calls_.size(); ++t)
            for_each_arg(t, [&](const args_dump_record& r) {
                ++s.args;
                s.lost_payloads += resolve(t, r).overwritten ? 1 : 0;
                s.truncated += r.truncated ? 1 : 0;
            });
        s.bin_bytes = bin_->bytes_reserved();
        s.write_error = bin_->error();
        return s;
    }

    // After stop(): args.bin and args_dump.json under <prefix>/args_dump/,
    // or nothing at all when no argument was captured. Returns the JSON's
    // path, or an empty path.
    std::filesystem::path write() {
        if (written_) throw output_error("args dump: write() was already called");
        written_ = true;
        const std::vector<args_dump_entry> all = entries();
        if (all.empty()) {
            bin_->discard();
            remove_dir_if_empty();
            return {};
        }
        args_dump_header header;
        header.level = level_;
        header.dropped_records = dropped_items(records_channel);
        for (const thread_calls& kept : calls_) header.malformed_call_records += kept.malformed;
        bin_->commit();  // the payloads first: the manifest names them
        return write_args_dump_json_file(prefix_, header, all);
    }

private:
    // The channels' names, as the accounting reports them.
    static constexpr const char* records_channel = record_kind<args_call_record>::name;
    static constexpr const char* payload_channel = record_kind<args_payload_chunk>::name;

    // What the channels of one kind lost in transport: records, or the
    // items the dropped records carried (the arguments of call records).
    std::uint64_t dropped(std::string_view channel) const {
        std::uint64_t n = 0;
        for (const auto& c : transport_.report()) n += c.name == channel ? c.dropped : 0;
        return n;
    }
    std::uint64_t dropped_items(std::string_view channel) const {
        std::uint64_t n = 0;
        for (const auto& c : transport_.report()) n += c.name == channel ? c.dropped_items : 0;
        return n;
    }

    // Drain side: a collected buffer of scheduler thread t's call records,
    // each checked (it decodes) and kept as it came, header and entries
    // without the transport's padding: a few bytes an argument where a
    // decoded record is 128, so the drain writes a quarter of the bytes or
    // less. They are decoded again when the run is over (for_each_arg). A
    // record that does not decode (or a buffer that ends inside one) is
    // counted with what was wrong, and the rest of the buffer is not trusted.
    void keep(std::uint32_t t, packed_records<args_call_record> calls) {
        thread_calls& kept = calls_[t];
        packed_cursor<args_call_record> at(calls);
        const char* error = nullptr;
        for (; const args_call_record* call = at.peek(); at.advance()) {
            const args_call_decoding d = decode_args_call(*call, [](const args_dump_record&) {});
            if (!d.ok()) {
                error = d.error;
                break;
            }
            kept.bytes.append(call, sizeof(args_call_record) + call->size);
            kept.args += d.args;
        }
        if (!error && !at.intact()) error = "a call record runs past its buffer or its slot";
        if (error) {
            if (!kept.first_error) kept.first_error = error;
            kept.malformed += calls.count - at.index();
        }
    }

    // After stop(): fn(record) for each argument scheduler thread t's drain
    // kept, in the order it came. Each record was checked when it was kept
    // and is 8-byte aligned there (a 32-byte header, entries of 8-byte words).
    template <class Fn>
    void for_each_arg(std::uint32_t t, Fn&& fn) const {
        const std::span<const std::byte> kept = calls_[t].bytes.bytes();
        for (std::size_t at = 0; at < kept.size();) {
            const auto* call = std::launder(reinterpret_cast<const args_call_record*>(kept.data() + at));
            decode_args_call(*call, fn);
            at += sizeof(args_call_record) + call->size;
        }
    }

    // One argument record of scheduler thread t, with where its bytes are in args.bin.
    args_dump_entry resolve(std::uint32_t t, const args_dump_record& r) const {
        args_dump_entry e;
        e.record = r;
        if (r.kind == dump_arg_kind::tensor && r.payload_size > 0) {
            const auto at = bin_->locate(t, r.payload_batch, r.payload_offset, r.payload_size);
            if (at) {
                e.bin_offset = *at;
                e.bin_size = r.payload_size;
            } else {
                e.overwritten = true;
            }
        }
        return e;
    }

    void remove_dir_if_empty() noexcept {
        std::error_code ec;
        const auto dir = prefix_ / schema::args_dump_dir;
        if (created_dir_ && std::filesystem::is_empty(dir, ec) && !ec) std::filesystem::remove(dir, ec);
    }

    int level_;
    std::filesystem::path prefix_;
    args_dump_layout layout_;
    bool created_dir_ = false;
    bool written_ = false;
    std::unique_ptr<args_bin_stream> bin_;  // kept after commit: entries() still resolves against it
    // What one scheduler thread's drain kept (written by that drain only).
    struct thread_calls {
        append_buffer bytes;          // the call records, back to back
        std::uint64_t args = 0;       // arguments in them
        std::uint64_t malformed = 0;  // call records that did not decode
        const char* first_error = nullptr;
    };
    std::vector<thread_calls> calls_;
    transport_host<MemoryOps> transport_;  // last: destroyed first, its drain threads write into the members above
};

}  // namespace dfx
