// perfetto_blocks: how the protobuf backend's second pass (perfetto_begins,
// on a thread of its own) hands its packets to the file while the first pass
// still binds flows. The second pass fills blocks of about 1 MiB; a block
// may hold places where a zero-length slice's END goes (pf_end_ref): the END
// carries the slice's flows, known only once every flow is bound. Until the
// first pass has written the slices' ENDs, the blocks wait in a bounded
// queue (the second pass waits when it is full); then the first pass writes
// the queued blocks and hands the writing over: from then on the second pass
// writes each block itself. Either way one thread writes at a time, in the
// blocks' order.
//
//   pf_block_queue queue(64);                       // at most 64 blocks wait
//   // second pass:                                 // first pass, once its ENDs are out:
//   block = queue.push(std::move(block));           queue.write_all_then_hand_over(write);
//   // (waits while 64 blocks wait; after the hand-over it calls write(block) itself)
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dfx/convert/common/protobuf_writer.hpp"

namespace dfx::convert::swimlane::trace {

// Where a zero-length slice's END goes in a block: before the byte at
// `offset`, at `ts`, on `track`, carrying the flows of the slice at `at` in
// nesting order.
struct pf_end_ref {
    std::size_t offset;
    std::int64_t ts;
    std::uint32_t track, at;
};

struct pf_block {
    byte_buffer bytes;
    std::vector<pf_end_ref> ends;  // by offset
    void clear() noexcept {
        bytes.clear();
        ends.clear();
    }
};

// The queue was cancelled (the first pass failed): the second pass stops.
struct pf_cancelled : std::runtime_error {
    pf_cancelled() : std::runtime_error("perfetto_trace: the second pass was cancelled") {}
};

class pf_block_queue {
public:
    explicit pf_block_queue(std::size_t most_waiting) : most_(most_waiting) {}

    // Second pass: hands a block over (to wait, or to write now, after the
    // hand-over) and returns an empty one. Waits while the queue is full;
    // throws pf_cancelled after cancel(), and what write throws.
    pf_block push(pf_block block) {
        std::unique_lock lock(mutex_);
        for (;;) {
            if (cancelled_) throw pf_cancelled();
            if (write_) {
                lock.unlock();
                write_(block);
                block.clear();
                return block;
            }
            if (waiting_.size() < most_) break;
            changed_.wait(lock);
        }
        waiting_.push_back(std::move(block));
        changed_.notify_all();
        pf_block fresh;
        if (!spare_.empty()) {
            fresh = std::move(spare_.back());
            spare_.pop_back();
        }
        return fresh;
    }

    // First pass: writes every waiting block with write(block), in order,
    // then lets the second pass write its blocks with it from now on.
    void write_all_then_hand_over(std::function<void(pf_block&)> write) {
        for (;;) {
            std::unique_lock lock(mutex_);
            if (waiting_.empty()) {
                write_ = std::move(write);
                changed_.notify_all();
                return;
            }
            pf_block block = std::move(waiting_.front());
            waiting_.pop_front();
            changed_.notify_all();
            lock.unlock();
            write(block);
            block.clear();
            lock.lock();
            spare_.push_back(std::move(block));
        }
    }

    // The second pass's next push throws pf_cancelled (and a waiting one wakes).
    void cancel() {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        changed_.notify_all();
    }

private:
    std::size_t most_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<pf_block> waiting_;
    std::vector<pf_block> spare_;  // written blocks, for the second pass to fill again
    std::function<void(pf_block&)> write_;  // set at the hand-over
    bool cancelled_ = false;
};

}  // namespace dfx::convert::swimlane::trace
