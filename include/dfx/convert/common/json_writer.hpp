// json_writer: fast streaming JSON output to a file, written atomically.
//
// The converters write traces of millions of events, so output is formatted
// into large blocks (json_buffer.hpp) that a background thread writes out
// while the next block fills (background_writer.hpp); nothing is kept per
// event. The file goes through the one temp-and-rename writer
// (io/atomic_file.hpp): written as "<path>.tmp.<pid>" and renamed over <path>
// by commit(), so a failed conversion never leaves a truncated file that
// looks like a valid trace (the previous output stays until then), the path
// never disappears, not even for a moment, and the temporary is removed on
// an error (the destructor) and on SIGINT / SIGTERM. Converter outputs are
// not fsynced: they can be made again from their inputs. "-" is standard
// output; an output that is one of the run's inputs (the same inode,
// input_file.hpp) is refused.
//
//   json_file_writer out(path);   // throws input_error
//   out.append(...); ...; out.commit();
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <unistd.h>

#include "dfx/convert/common/background_writer.hpp"
#include "dfx/convert/common/json_buffer.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/io/atomic_file.hpp"

namespace dfx::convert {

// The file's own bytes are appended through the json_buffer interface;
// parts formatted on other threads join in between, in order (hand_over()).
class json_file_writer : public json_buffer {
public:
    explicit json_file_writer(std::string path) : path_(std::move(path)) {
        if (is_input(path_))
            throw input_error(fmt::format("{}: is also an input of this run; choose another output", path_));
        std::FILE* out = nullptr;
        if (path_ == "-") {
            std::fflush(stdout);  // what was printed before comes first
            const int fd = ::dup(STDOUT_FILENO);
            stdout_.reset(fd < 0 ? nullptr : ::fdopen(fd, "wb"));
            if (!stdout_) throw input_error(fmt::format("standard output: cannot write: {}", std::strerror(errno)));
            out = stdout_.get();
        } else {
            try {
                out = file_.emplace(path_).stream();
            } catch (const io::write_error& e) {
                throw input_error(e.what());
            }
        }
        // This writer's own block, one being formatted and one waiting per
        // formatting thread (ordered_chunks.hpp), one being written.
        writer_.emplace(out, block_capacity, 6);
        json_buffer::operator=(fresh_block());
    }
    json_file_writer(const json_file_writer&) = delete;
    json_file_writer& operator=(const json_file_writer&) = delete;
    ~json_file_writer() override {
        writer_.reset();  // its thread stops writing first
        file_.reset();    // not committed: the temporary is removed
    }

    // Call between events: writes the buffer out once it holds a block, so
    // writes are large and events rarely straddle two of them.
    void maybe_flush() {
        if (size_ >= block_bytes) flush();
    }
    [[nodiscard]] std::uint64_t bytes_written() const noexcept {
        return written_.load(std::memory_order_relaxed) + size_;
    }

    // Output formatted on other threads (ordered_chunks.hpp). reserve_parts(n)
    // ends the current block and returns the first of n sequence numbers;
    // each number is then handed over exactly once, from any thread, with a
    // block from fresh_block() (possibly grown, possibly empty), and the file
    // gets them in number order before anything appended afterwards. A block
    // not needed after all goes back with give_back().
    std::uint64_t reserve_parts(std::size_t n) {
        flush();
        const std::uint64_t first = next_seq_;
        next_seq_ += n;
        return first;
    }
    json_buffer fresh_block() { return json_buffer(writer_->take(), block_capacity); }
    void give_back(json_buffer&& unused) {
        const std::size_t capacity = unused.capacity();
        writer_->give_back(unused.release(), capacity);
    }
    // Returns the errno of an earlier failed write, or 0 (it is reported
    // again by commit()).
    int hand_over(std::uint64_t seq, json_buffer&& part) {
        const std::size_t size = part.size(), capacity = part.capacity();
        written_.fetch_add(size, std::memory_order_relaxed);
        io_progress::add_written(size);
        return writer_->hand_over(seq, part.release(), capacity, size);
    }

    // Flushes, closes and renames the temporary file over the target.
    void commit() {
        flush();
        if (const int err = writer_->finish(); err != 0) fail_write(err);
        writer_.reset();
        if (file_) {
            try {
                file_->commit();  // ENOSPC often shows only here, at the flush or close
            } catch (const io::write_error& e) {
                throw input_error(e.what());
            }
            return;
        }
        if (std::fclose(stdout_.release()) != 0) fail_write(errno);
    }

protected:
    void make_room(std::size_t) override { flush(); }

private:
    static constexpr std::size_t block_bytes = std::size_t{1} << 20;
    // Slack past block_bytes, so the event that crosses it still fits.
    static constexpr std::size_t block_capacity = block_bytes + (std::size_t{64} << 10);
    struct file_closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    void flush() {
        if (size_ == 0) return;
        if (const int err = hand_over(next_seq_++, std::move(*this)); err != 0) fail_write(err);
        json_buffer::operator=(fresh_block());
    }
    [[noreturn]] void fail_write(int err) const {
        throw input_error(fmt::format("{}: cannot write: {}", path_ == "-" ? "standard output" : path_, std::strerror(err)));
    }

    std::string path_;
    std::optional<io::atomic_file> file_;                 // a path
    std::unique_ptr<std::FILE, file_closer> stdout_;     // or "-": a duplicate of standard output
    std::optional<background_writer> writer_;            // writes to one of them; destroyed first
    std::uint64_t next_seq_ = 0;
    std::atomic<std::uint64_t> written_{0};
};

}  // namespace dfx::convert
