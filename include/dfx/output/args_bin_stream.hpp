// args.bin, written while the run goes: the host drain hands over each
// collected buffer of payload chunks and their bytes go straight from the
// transport buffer into the file (one pwritev per run of chunks, across the
// batches of one buffer when their ranges follow each other; no copy in
// between), so the dump drains at page-cache speed rather than being held
// in memory.
//
// Each batch (one capture call's tensors, record/args_dump_records.hpp) gets
// a contiguous range of the file when its first chunk arrives, so offsets
// follow collection order as the reference's do and a payload is never split.
// After the run, locate() says where a payload landed, or that some of its
// bytes never arrived (chunks dropped under backpressure, or a write that
// failed): such a payload is reported, never written short and unflagged.
//
// The file is a temporary beside args.bin until commit() renames it in
// (after fsync), so a crash never leaves an args.bin that looks complete:
// the one temp-and-rename writer, io/atomic_file.hpp, with the artefacts'
// policy (artefact_file.hpp).
//
//   dfx::args_bin_stream bin(staging / "args_dump" / "args.bin", producers);   // throws output_error
//   bin.consume(producer, chunks);   // a collected buffer (packed_records), from the drain threads
//   bin.locate(producer, batch, offset, size);   // after the drain stopped
//   bin.commit();                    // or bin.discard()
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <sys/uio.h>
#include <unistd.h>

#include "dfx/io/atomic_file.hpp"
#include "dfx/output/append_buffer.hpp"
#include "dfx/output/artefact_file.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/transport/packed_records.hpp"

namespace dfx {

class args_bin_stream {
public:
    args_bin_stream(std::filesystem::path final_path, std::uint32_t producers)
        : final_path_(std::move(final_path)), producers_(producers) {
        try {
            file_.emplace(final_path_, artefact_file_options);
        } catch (const io::write_error& e) {
            throw output_error(e.what());
        }
        fd_ = file_->fd();
    }
    args_bin_stream(const args_bin_stream&) = delete;
    args_bin_stream& operator=(const args_bin_stream&) = delete;
    ~args_bin_stream() { discard(); }

    // Drain side: one producer's collected buffer of chunks (packed back to
    // back, transport/packed_records.hpp), in the order it wrote them. Calls
    // for different producers may run concurrently (each producer's state is
    // its own; file ranges are reserved atomically). Never throws: a failure
    // is recorded and the affected payloads are reported as incomplete.
    void consume(std::uint32_t producer, packed_records<args_payload_chunk> chunks) noexcept {
        if (producer >= producers_.size()) {
            note_error("args.bin: chunks from an unknown producer " + std::to_string(producer));
            return;
        }
        producer_state& p = producers_[producer];
        packed_cursor<args_payload_chunk> at(chunks);
        try {
            while (const args_payload_chunk* first = at.peek()) {
                // A chunk that contradicts itself (or its batch, below) is a
                // bug somewhere: refuse it before it can reserve file space.
                batch_state* b = self_consistent(*first) ? batch_for(p, *first) : nullptr;
                if (!b || !valid(*first, *b)) {
                    note_error("args.bin: a payload chunk does not fit its batch (batch " +
                               std::to_string(first->batch) + ")");
                    at.advance();
                    continue;
                }
                // A run: consecutive chunks, each continuing the last in the
                // file, go out in one pwritev. Within a batch that is each
                // chunk continuing the last; a run goes on into the next batch
                // when that batch's range was reserved right after (one batch
                // per small capture: without this, one syscall per task).
                iovec iov[max_iov];
                run_piece pieces[max_iov];
                int n = 0;
                int np = 0;
                auto bi = static_cast<std::size_t>(b - p.batches.data());
                std::uint64_t run_end = first->offset;
                std::uint64_t file_end = b->file_offset + run_end;
                pieces[np++] = {bi, run_end, run_end};
                while (n < max_iov) {
                    const args_payload_chunk* c = at.peek();
                    if (!c) break;
                    if (c->batch != p.batches[bi].batch) {
                        // Only a batch not seen yet (batch_for reports one out of order) that
                        // starts here, at its own beginning.
                        if (c->batch < p.batches.back().batch || c->offset != 0 || !self_consistent(*c)) break;
                        batch_state* next = batch_for(p, *c);
                        if (!next || !valid(*c, *next) || next->file_offset != file_end) break;
                        bi = static_cast<std::size_t>(next - p.batches.data());
                        run_end = 0;
                        pieces[np++] = {bi, 0, 0};
                    } else if (c->offset != run_end || !valid(*c, p.batches[bi])) {
                        break;
                    }
                    iov[n].iov_base = const_cast<std::byte*>(c->data());
                    iov[n].iov_len = c->size;
                    run_end += c->size;
                    file_end += c->size;
                    pieces[np - 1].end = run_end;
                    ++n;
                    at.advance();
                }
                const std::uint64_t file_start = p.batches[pieces[0].batch_index].file_offset + pieces[0].begin;
                if (write_all(iov, n, file_start)) {
                    for (int k = 0; k < np; ++k)
                        mark_written(p, p.batches[pieces[k].batch_index], pieces[k].begin, pieces[k].end);
                } else {
                    failed_bytes_.fetch_add(file_end - file_start, std::memory_order_relaxed);
                }
            }
            if (!at.intact())
                note_error("args.bin: a payload buffer of producer " + std::to_string(producer) +
                           " is malformed (a chunk runs past its buffer); the rest of it was skipped");
        } catch (const std::exception& e) {
            note_error(std::string("args.bin: ") + e.what());
        }
    }

    // After the drain stopped: the file offset of a payload's first byte, or
    // nothing when any of its bytes is missing.
    std::optional<std::uint64_t> locate(std::uint32_t producer, std::uint64_t batch, std::uint64_t offset,
                                        std::uint64_t size) const {
        if (producer >= producers_.size()) return std::nullopt;
        const producer_state& p = producers_[producer];
        const std::span<const batch_state> batches = p.batches.all();
        const auto it = std::lower_bound(batches.begin(), batches.end(), batch,
                                         [](const batch_state& b, std::uint64_t id) { return b.batch < id; });
        if (it == batches.end() || it->batch != batch || offset + size > it->size) return std::nullopt;
        if (!contains(p, *it, offset, offset + size)) return std::nullopt;
        return it->file_offset + offset;
    }

    std::uint64_t bytes_written() const noexcept { return written_bytes_.load(std::memory_order_relaxed); }
    std::uint64_t bytes_reserved() const noexcept { return next_offset_.load(std::memory_order_relaxed); }
    std::uint64_t bytes_failed() const noexcept { return failed_bytes_.load(std::memory_order_relaxed); }
    std::string error() const {
        std::lock_guard lock(error_mutex_);
        return error_;
    }

    // Moves the finished file into place as args.bin: sized to every range
    // handed out (a range whose chunks never came reads as zeros), synced,
    // renamed. Throws output_error.
    void commit() {
        if (fd_ < 0) throw output_error(final_path_.string() + ": already committed or discarded");
        fd_ = -1;
        if (::ftruncate(file_->fd(), static_cast<off_t>(bytes_reserved())) != 0) {
            const int err = errno;
            file_.reset();  // removes the temporary
            throw output_error(final_path_.string() + ": cannot write: " + std::strerror(err));
        }
        try {
            file_->commit();
        } catch (const io::write_error& e) {
            file_.reset();
            throw output_error(e.what());
        }
        file_.reset();
    }

    // Drops the temporary file (nothing to publish, or an error).
    void discard() noexcept {
        fd_ = -1;
        file_.reset();
    }

private:
    static constexpr int max_iov = 1024;  // IOV_MAX on Linux

    // The part of one batch a run writes: [begin, end) of the batch.
    struct run_piece {
        std::size_t batch_index;
        std::uint64_t begin;
        std::uint64_t end;
    };

    struct batch_state {
        std::uint64_t batch = 0;
        std::uint64_t size = 0;
        std::uint64_t file_offset = 0;
        std::uint64_t written_end = 0;  // [0, written_end) reached the file, while no gap was seen
        bool gapped = false;            // a chunk is missing: the exact ranges are in producer_state::gaps
    };

    // One producer's batches, in arrival order (which is batch order): one a
    // capture call, so hundreds of thousands in a run. In an append_buffer
    // rather than a vector, whose doublings copied every batch again and
    // faulted in twice its memory, on the drain thread that all of a
    // session's collectors share (perf of dfx-sim's stream workload with
    // every collector on: a seventh of that thread's samples).
    class batch_list {
    public:
        // (By value: a reference into the list would not survive its growth.)
        batch_state& push_back(batch_state b) {
            std::memcpy(bytes_.extend(sizeof b), &b, sizeof b);
            return back();
        }
        [[nodiscard]] bool empty() const noexcept { return bytes_.empty(); }
        [[nodiscard]] std::span<batch_state> all() noexcept { return bytes_.as<batch_state>(); }
        [[nodiscard]] std::span<const batch_state> all() const noexcept { return bytes_.as<batch_state>(); }
        [[nodiscard]] batch_state& back() noexcept { return all().back(); }
        [[nodiscard]] batch_state& operator[](std::size_t i) noexcept { return all()[i]; }
        [[nodiscard]] batch_state* data() noexcept { return all().data(); }

    private:
        append_buffer bytes_;
    };

    struct producer_state {
        batch_list batches;
        std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> gaps;  // batch -> written ranges
    };

    static bool self_consistent(const args_payload_chunk& c) noexcept {
        return c.size > 0 && c.size <= args_payload_chunk_bytes && c.offset <= c.batch_size &&
               c.size <= c.batch_size - c.offset;
    }
    static bool valid(const args_payload_chunk& c, const batch_state& b) noexcept {
        return self_consistent(c) && c.batch_size == b.size;
    }

    // The chunk's batch, created (with its file range) when first seen.
    batch_state* batch_for(producer_state& p, const args_payload_chunk& c) {
        if (!p.batches.empty() && p.batches.back().batch == c.batch) return &p.batches.back();
        if (!p.batches.empty() && p.batches.back().batch > c.batch) {
            note_error("args.bin: payload chunks out of order (batch " + std::to_string(c.batch) + ")");
            return nullptr;
        }
        batch_state b;
        b.batch = c.batch;
        b.size = c.batch_size;
        b.file_offset = next_offset_.fetch_add(c.batch_size, std::memory_order_relaxed);
        return &p.batches.push_back(b);
    }

    void mark_written(producer_state& p, batch_state& b, std::uint64_t begin, std::uint64_t end) {
        written_bytes_.fetch_add(end - begin, std::memory_order_relaxed);
        if (!b.gapped && begin == b.written_end) {
            b.written_end = end;
            return;
        }
        auto& ranges = p.gaps[b.batch];
        if (!b.gapped) {
            b.gapped = true;
            if (b.written_end > 0) ranges.emplace_back(0, b.written_end);
        }
        if (!ranges.empty() && ranges.back().second == begin)
            ranges.back().second = end;
        else
            ranges.emplace_back(begin, end);
    }

    static bool contains(const producer_state& p, const batch_state& b, std::uint64_t begin, std::uint64_t end) {
        if (begin == end) return true;
        if (!b.gapped) return end <= b.written_end;
        const auto it = p.gaps.find(b.batch);
        if (it == p.gaps.end()) return false;
        for (const auto& [first, last] : it->second)
            if (first <= begin && end <= last) return true;
        return false;
    }

    bool write_all(iovec* iov, int count, std::uint64_t offset) noexcept {
        while (count > 0) {
            const ssize_t n = ::pwritev(fd_, iov, count, static_cast<off_t>(offset));
            if (n < 0) {
                if (errno == EINTR) continue;
                note_error(std::string("args.bin: write failed: ") + std::strerror(errno));
                return false;
            }
            offset += static_cast<std::uint64_t>(n);
            auto left = static_cast<std::size_t>(n);
            while (count > 0 && left >= iov->iov_len) {
                left -= iov->iov_len;
                ++iov;
                --count;
            }
            if (count > 0) {
                iov->iov_base = static_cast<char*>(iov->iov_base) + left;
                iov->iov_len -= left;
            }
        }
        return true;
    }

    void note_error(std::string message) noexcept {
        try {
            std::lock_guard lock(error_mutex_);
            if (error_.empty()) error_ = std::move(message);
        } catch (...) {
        }
    }

    std::filesystem::path final_path_;
    std::optional<io::atomic_file> file_;  // until committed or discarded
    int fd_ = -1;                          // file_'s descriptor, for pwritev
    std::vector<producer_state> producers_;  // sized once: concurrent consume() calls touch disjoint entries
    std::atomic<std::uint64_t> next_offset_{0};
    std::atomic<std::uint64_t> written_bytes_{0};
    std::atomic<std::uint64_t> failed_bytes_{0};
    mutable std::mutex error_mutex_;
    std::string error_;
};

}  // namespace dfx
