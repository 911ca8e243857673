// pipelined_handler: run a json_member_handler on a second thread while
// json_object_stream scans the file on the first.
//
// Reading a large deps.json is two passes over every byte of equal weight:
// the stream's grammar scan, and simdjson parsing each delivered element into
// the handler's model. Run one after the other they add up; here the scanner
// copies each delivered value, element or batch into a parcel (about 1 MiB)
// and hands full parcels to a thread that replays them, in file order, on the wrapped
// handler. On two cores the read takes the longer of the two passes instead
// of their sum; two parcels in flight keep memory flat.
//
// Contract for the wrapped handler: use() is called on the scanner thread and
// must only look at the key (it decides what the scanner captures); value(),
// element() and array_end() run on the replay thread, one at a time, in file
// order. Errors keep their sequential meaning: the first error in file order
// wins, whether the scanner or the handler finds it.
//
//     run_pipelined(json_object_stream(path), handler);   // instead of .run(handler)
#pragma once

#include <simdjson.h>

#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dfx/convert/common/json_object_stream.hpp"

namespace dfx::convert {

class pipelined_handler final : public json_member_handler {
public:
    explicit pipelined_handler(json_member_handler& inner) : inner_(inner), thread_([this] { replay_loop(); }) {}
    pipelined_handler(const pipelined_handler&) = delete;
    pipelined_handler& operator=(const pipelined_handler&) = delete;
    ~pipelined_handler() override {
        stop(false);
        thread_.join();
    }

    member_use use(std::string_view key) override { return inner_.use(key); }
    void value(std::string_view key, simdjson::padded_string_view json) override { add(kind::value, key, {}, json); }
    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        add(kind::element, key, {0, index, 0}, json);
    }
    void batch(std::string_view key, const element_batch& at, simdjson::padded_string_view json) override {
        add(kind::batch, key, at, json);
    }
    void array_end(std::string_view key, std::size_t count) override { add(kind::array_end, key, {0, count, 0}, {}); }

    // After the scan succeeded: replays what is left; rethrows the handler's
    // first exception.
    void finish() {
        hand_over();
        stop(true);
        std::lock_guard lock(mutex_);
        if (error_) std::rethrow_exception(error_);
    }

    // After the scan failed with `scan_error`: the handler's own error wins
    // when it comes from an earlier element (everything the handler was given
    // precedes the point where the scan stopped), so replay what was scanned
    // and rethrow whichever is first.
    [[noreturn]] void fail(std::exception_ptr scan_error) {
        hand_over();
        stop(true);
        std::lock_guard lock(mutex_);
        std::rethrow_exception(error_ ? error_ : scan_error);
    }

private:
    enum class kind : unsigned char { value, element, batch, array_end };
    struct event {
        kind what;
        std::string key;
        element_batch at;  // at.first: the element index, or the array length for array_end
        std::size_t offset, size;
        std::uint64_t file_offset;  // value_offset at delivery
    };
    struct parcel {  // what one hand-over carries
        std::vector<char> bytes;  // each element followed by simdjson's padding
        std::vector<event> events;
    };
    static constexpr std::size_t parcel_bytes = std::size_t{1} << 20;

    void add(kind what, std::string_view key, const element_batch& at, simdjson::padded_string_view json) {
        const std::string_view text(json);
        std::vector<char>& bytes = filling_.bytes;
        const std::size_t offset = bytes.size();
        if (!text.empty()) {
            bytes.insert(bytes.end(), text.begin(), text.end());
            bytes.resize(bytes.size() + simdjson::SIMDJSON_PADDING, ' ');
        }
        filling_.events.push_back({what, std::string(key), at, offset, text.size(), value_offset});
        if (bytes.size() >= parcel_bytes || filling_.events.size() >= parcel_bytes / 64) hand_over();
    }

    // Queues the filling parcel; waits while two are already queued. A
    // handler error stops the scan here (the rest of the file is moot).
    void hand_over() {
        std::unique_lock lock(mutex_);
        if (error_) {
            auto e = error_;
            lock.unlock();
            stop(true);
            std::rethrow_exception(e);
        }
        if (filling_.events.empty()) return;
        room_.wait(lock, [&] { return queue_.size() < 2 || error_; });
        queue_.push_back(std::move(filling_));
        filling_ = {};
        if (!spare_.empty()) {  // a replayed parcel: its memory is allocated and touched already
            filling_ = std::move(spare_.back());
            spare_.pop_back();
        }
        work_.notify_one();
    }

    // Ends the replay thread: after the queue drains (`drain`), or at once.
    void stop(bool drain) {
        std::unique_lock lock(mutex_);
        if (!drain) queue_.clear();
        stopping_ = true;
        work_.notify_one();
        room_.wait(lock, [&] { return queue_.empty() && !busy_; });
    }

    void replay_loop() {
        std::unique_lock lock(mutex_);
        for (;;) {
            work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            parcel b = std::move(queue_.front());
            queue_.pop_front();
            busy_ = true;
            const bool skip = error_ != nullptr;
            lock.unlock();
            if (!skip) {
                try {
                    replay(b);
                } catch (...) {
                    lock.lock();
                    error_ = std::current_exception();
                    lock.unlock();
                }
            }
            lock.lock();
            b.bytes.clear();
            b.events.clear();
            // Kept for reuse unless one huge value grew it: that memory goes back.
            if (spare_.size() < 2 && b.bytes.capacity() <= 2 * parcel_bytes) spare_.push_back(std::move(b));
            busy_ = false;
            room_.notify_all();
        }
    }

    void replay(parcel& b) {
        for (const event& e : b.events) {
            const simdjson::padded_string_view json(b.bytes.data() + e.offset, e.size, e.size + simdjson::SIMDJSON_PADDING);
            inner_.value_offset = e.file_offset;
            switch (e.what) {
                case kind::value: inner_.value(e.key, json); break;
                case kind::element: inner_.element(e.key, e.at.first, json); break;
                case kind::batch: inner_.batch(e.key, e.at, json); break;
                case kind::array_end: inner_.array_end(e.key, e.at.first); break;
            }
        }
    }

    json_member_handler& inner_;
    parcel filling_;  // scanner thread only
    std::mutex mutex_;
    std::condition_variable work_, room_;
    std::deque<parcel> queue_;
    std::vector<parcel> spare_;  // replayed parcels, for reuse
    bool busy_ = false;
    bool stopping_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: starts once everything above exists
};

// Scans `stream` and feeds `handler` on a second thread, with the error
// behaviour of stream.run(handler).
inline void run_pipelined(json_object_stream&& stream, json_member_handler& handler) {
    pipelined_handler p(handler);
    try {
        stream.run(p);
    } catch (...) {
        p.fail(std::current_exception());
    }
    p.finish();
}

// How a reader spends cores: `pipelined` scans on the calling thread and
// parses on a second one; `one_thread` does both on the calling thread, for
// when another reader has the second core (two pipelined readers on two
// cores ran slower than two plain ones: 4 threads, a copy of every element,
// and hand-overs).
enum class reader_threads { pipelined, one_thread };

inline void run_with(json_object_stream&& stream, json_member_handler& handler, reader_threads threads) {
    if (threads == reader_threads::pipelined) run_pipelined(std::move(stream), handler);
    else stream.run(handler);
}

}  // namespace dfx::convert
