// background_writer: hands filled output blocks to a thread that writes them.
//
// A converter's trace is gigabytes of small formatted events. Formatting is
// user time; copying the blocks into the page cache is kernel time of about
// the same size. Doing the copy on a second thread lets both run at once, so
// the wall time is the larger of the two rather than their sum. Callers fill
// blocks while the thread writes others; a bounded pool of blocks keeps
// memory flat however far the disk falls behind.
//
// Every block carries a sequence number and the file receives them in that
// order, whichever order they arrive in: several threads can format parts of
// one output at once (ordered_chunks.hpp).
//
// Write errors happen on the thread; they are kept and reported to the owner
// at its next hand-over or at finish(). After one, blocks are dropped
// unwritten, in any order, so nobody waits for a block that never comes.
#pragma once

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dfx::convert {

class background_writer {
public:
    // Writes to `file` (not owned); hands out blocks of `block_bytes`,
    // `blocks` of them at most.
    background_writer(std::FILE* file, std::size_t block_bytes, std::size_t blocks = 3)
        : file_(file), block_bytes_(block_bytes) {
        // Not make_unique, which zeroes: a block's pages are touched (and
        // faulted in) only as output fills them, so a small output never
        // pays for all the blocks.
        for (std::size_t i = 0; i < blocks; ++i) free_.push_back(std::unique_ptr<char[]>(new char[block_bytes]));
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

    // A free block of `block_bytes`; waits while all are queued or in use.
    std::unique_ptr<char[]> take() {
        std::unique_lock lock(mutex_);
        block_freed_.wait(lock, [&] { return !free_.empty(); });
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
    }

    // Returns a block from take() that was not needed.
    void give_back(std::unique_ptr<char[]> block, std::size_t capacity) {
        std::lock_guard lock(mutex_);
        pool(std::move(block), capacity);
        block_freed_.notify_all();
    }

    // Queues the first `size` bytes of `block` (`capacity` bytes long) to be
    // written as number `seq`; numbers start at 0 and each is used once.
    // Returns the errno of a failed write so far, or 0; after a failure the
    // block is dropped unwritten and the caller stops writing.
    int hand_over(std::uint64_t seq, std::unique_ptr<char[]> block, std::size_t capacity, std::size_t size) {
        std::lock_guard lock(mutex_);
        full_.push_back({seq, std::move(block), capacity, size});
        wake_writer_.notify_one();
        return error_;
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
        std::uint64_t seq;
        std::unique_ptr<char[]> data;
        std::size_t capacity;
        std::size_t size;
    };

    // The block to write next: number next_seq_, or after a failure any.
    std::vector<pending>::iterator next_ready() {
        if (error_ != 0) return full_.begin();
        return std::find_if(full_.begin(), full_.end(), [&](const pending& p) { return p.seq == next_seq_; });
    }

    // A block that grew past the standard size is replaced by a standard
    // one: the pool keeps its count and its memory.
    void pool(std::unique_ptr<char[]> block, std::size_t capacity) {
        free_.push_back(capacity == block_bytes_ ? std::move(block) : std::unique_ptr<char[]>(new char[block_bytes_]));
    }

    void run() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_writer_.wait(lock, [&] { return stopping_ || next_ready() != full_.end(); });
            const auto it = next_ready();
            if (it == full_.end()) return;  // stopping, nothing left in order
            pending p = std::move(*it);
            full_.erase(it);
            writing_ = true;
            const bool skip = error_ != 0;  // after a failure, drop the rest
            lock.unlock();
            int err = 0;
            if (!skip && std::fwrite(p.data.get(), 1, p.size, file_) != p.size) err = errno != 0 ? errno : EIO;
            lock.lock();
            if (err != 0 && error_ == 0) error_ = err;
            ++next_seq_;
            writing_ = false;
            pool(std::move(p.data), p.capacity);
            block_freed_.notify_all();
        }
    }

    std::FILE* file_;
    std::size_t block_bytes_;
    std::mutex mutex_;
    std::condition_variable wake_writer_;
    std::condition_variable block_freed_;
    std::vector<std::unique_ptr<char[]>> free_;
    std::vector<pending> full_;  // a handful at most: a linear search finds the next
    std::uint64_t next_seq_ = 0;
    bool writing_ = false;
    bool stopping_ = false;
    int error_ = 0;
    std::thread thread_;
};

}  // namespace dfx::convert
