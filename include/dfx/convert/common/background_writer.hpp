// background_writer: hands filled output blocks to a thread that writes them.
//
// A converter's trace is gigabytes of small formatted events. Formatting is
// user time; copying the blocks into the page cache is kernel time of about
// the same size. Doing the copy on a second thread lets both run at once, so
// the wall time is the larger of the two rather than their sum. The caller
// fills one block while the thread writes the others; a bounded pool of
// blocks keeps memory flat however far the disk falls behind.
//
// Write errors happen on the thread; they are kept and reported to the owner
// at its next hand-over or at finish(), so the caller sees them in order.
#pragma once

#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dfx::convert {

class background_writer {
public:
    // Writes to `file` (not owned) from blocks of `block_bytes`, `blocks` of
    // them in flight at most.
    background_writer(std::FILE* file, std::size_t block_bytes, std::size_t blocks = 3) : file_(file) {
        // Not make_unique, which zeroes: a block's pages are touched (and
        // faulted in) only as output fills them, so a small output never
        // pays for all the blocks.
        for (std::size_t i = 0; i < blocks; ++i) free_.push_back(std::unique_ptr<char[]>(new char[block_bytes]));
        current_ = take_free();
        thread_ = std::thread([this] { run(); });
    }
    background_writer(const background_writer&) = delete;
    background_writer& operator=(const background_writer&) = delete;
    ~background_writer() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_writer_.notify_one();
        thread_.join();
    }

    // The block the caller fills.
    [[nodiscard]] char* block() const noexcept { return current_.get(); }

    // Queues the first `size` bytes of block() for writing and returns a
    // fresh block. Returns the errno of an earlier failed write instead (0
    // when all is well); the caller then stops writing.
    int hand_over(std::size_t size) {
        std::unique_lock lock(mutex_);
        if (error_ != 0) return error_;
        full_.push_back({std::move(current_), size});
        wake_writer_.notify_one();
        block_freed_.wait(lock, [&] { return !free_.empty(); });
        current_ = std::move(free_.back());
        free_.pop_back();
        return 0;
    }

    // Waits until every queued block is written; returns the errno of the
    // first failed write, or 0.
    int finish() {
        std::unique_lock lock(mutex_);
        block_freed_.wait(lock, [&] { return full_.empty() && !writing_; });
        return error_;
    }

private:
    struct pending {
        std::unique_ptr<char[]> data;
        std::size_t size;
    };

    std::unique_ptr<char[]> take_free() {
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
    }

    void run() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_writer_.wait(lock, [&] { return stopping_ || !full_.empty(); });
            if (full_.empty()) return;  // stopping, nothing left
            pending p = std::move(full_.front());
            full_.pop_front();
            writing_ = true;
            const bool skip = error_ != 0;  // after a failure, drop the rest
            lock.unlock();
            int err = 0;
            if (!skip && std::fwrite(p.data.get(), 1, p.size, file_) != p.size) err = errno != 0 ? errno : EIO;
            lock.lock();
            if (err != 0 && error_ == 0) error_ = err;
            writing_ = false;
            free_.push_back(std::move(p.data));
            block_freed_.notify_one();
        }
    }

    std::FILE* file_;
    std::mutex mutex_;
    std::condition_variable wake_writer_;
    std::condition_variable block_freed_;
    std::vector<std::unique_ptr<char[]>> free_;
    std::deque<pending> full_;
    std::unique_ptr<char[]> current_;
    bool writing_ = false;
    bool stopping_ = false;
    int error_ = 0;
    std::thread thread_;
};

}  // namespace dfx::convert
