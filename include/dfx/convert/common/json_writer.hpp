// json_writer: fast streaming JSON output to a file, written atomically.
//
// The converters write traces of millions of events, so output is formatted
// into large blocks (json_buffer.hpp) that a background thread writes out
// while the next block fills (background_writer.hpp); nothing is kept per
// event. The file is written as "<path>.tmp.<pid>" and renamed to <path> by
// commit(), so a failed conversion never leaves a truncated file that looks
// like a valid trace (the previous output stays until then), and two
// conversions to one path never share a temporary.
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

#include <sys/stat.h>
#include <unistd.h>

#include "dfx/convert/common/background_writer.hpp"
#include "dfx/convert/common/json_buffer.hpp"
#include "dfx/convert/common/input_error.hpp"

namespace dfx::convert {

// The file's own bytes are appended through the json_buffer interface;
// parts formatted on other threads join in between, in order (hand_over()).
class json_file_writer : public json_buffer {
public:
    explicit json_file_writer(std::string path)
        : path_(std::move(path)),
          direct_(is_special_file(path_)),
          tmp_path_(direct_ ? path_ : path_ + ".tmp." + std::to_string(::getpid())) {
        file_.reset(std::fopen(tmp_path_.c_str(), "wb"));
        if (!file_) throw input_error(fmt::format("{}: cannot create: {}", tmp_path_, std::strerror(errno)));
        // This writer's own block, one being formatted and one waiting per
        // formatting thread (ordered_chunks.hpp), one being written.
        writer_.emplace(file_.get(), block_capacity, 6);
        json_buffer::operator=(fresh_block());
    }
    json_file_writer(const json_file_writer&) = delete;
    json_file_writer& operator=(const json_file_writer&) = delete;
    ~json_file_writer() override {
        if (file_) {  // not committed: drop the partial file
            writer_.reset();
            file_.reset();
            if (!direct_) std::remove(tmp_path_.c_str());
        }
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
        return writer_->hand_over(seq, part.release(), capacity, size);
    }

    // Flushes, closes and renames the temporary file over the target.
    void commit() {
        flush();
        if (const int err = writer_->finish(); err != 0) fail_write(err);
        writer_.reset();
        std::FILE* f = file_.release();
        if (std::fclose(f) != 0) fail_write(errno);
        if (direct_) return;
        // The previous output is unlinked first: a rename over an existing
        // file makes ext4 (auto_da_alloc) allocate the new file's blocks and
        // start writing them back inside rename(), ~3 ms for a 2 MB file
        // here. A crash in between leaves no file, never a partial one.
        std::remove(path_.c_str());  // nothing there is fine; rename reports real problems
        if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
            const int err = errno;
            std::remove(tmp_path_.c_str());
            throw input_error(fmt::format("{}: cannot write: {}", path_, std::strerror(err)));
        }
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
    // /dev/null, a pipe or a terminal: written in place (renaming a
    // temporary over a device node would replace the node).
    static bool is_special_file(const std::string& path) {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    }
    void flush() {
        if (size_ == 0) return;
        if (const int err = hand_over(next_seq_++, std::move(*this)); err != 0) fail_write(err);
        json_buffer::operator=(fresh_block());
    }
    [[noreturn]] void fail_write(int err) const {
        throw input_error(fmt::format("{}: write failed: {}", path_, std::strerror(err)));
    }

    std::string path_;
    bool direct_;
    std::string tmp_path_;
    std::unique_ptr<std::FILE, file_closer> file_;
    std::optional<background_writer> writer_;
    std::uint64_t next_seq_ = 0;
    std::atomic<std::uint64_t> written_{0};
};

}  // namespace dfx::convert
