// The host side of the transport: builds the channels, runs the drain
// threads that hand full buffers to each channel's sink and recycle them,
// and accounts for every record.
//
//   dfx::transport_host<> host;
//   auto channel = host.add_channel<dfx::aicore_task_record>("aicore", core_id, 4, 1024,
//       [&](std::span<const dfx::aicore_task_record> records) { ...copy them out... });
//   host.start();
//   ...producers run: dfx::producer<dfx::aicore_task_record> out{channel};...
//   host.stop();                        // drains until every producer has exited
//   auto report = host.report();        // per channel: produced, collected, dropped
//
// Shutdown order: stop() keeps draining until every attached producer has
// said "exited" (after publishing its last buffer) and its ready ring is
// empty, so a record pushed late is still collected. A producer that has not
// exited by the stop timeout is reported with the records still in its hands.
//
// With transport_options::group set, the host runs no thread of its own: its
// channels are drained by the group's one thread, with the other members'
// (drain_group.hpp), until stop(), which leaves the group and drains the
// rest on the calling thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dfx/transport/accounting.hpp"
#include "dfx/transport/backoff.hpp"
#include "dfx/transport/channel.hpp"
#include "dfx/transport/drain_group.hpp"
#include "dfx/transport/memory_ops.hpp"
#include "dfx/transport/packed_records.hpp"
#include "dfx/transport/producer.hpp"

namespace dfx {

struct transport_options {
    std::uint32_t drain_threads = 1;
    // How long stop() waits for producers that are still running.
    std::chrono::milliseconds stop_timeout{60'000};
    // The longest sleep of a drain thread that found nothing to collect (its
    // sleeps double from 20 us up to this; any work resets them): the most
    // a full buffer waits before it is collected once its channel has been
    // quiet. Longer costs less CPU on an idle run, shorter gives producers
    // their buffers back sooner after a quiet spell (backoff.hpp). Held to
    // [20 us, 1 s].
    std::chrono::microseconds drain_idle_sleep_max{1'000};
    // When set, the group's thread drains this host's channels with those of
    // its other members: drain_threads is not used, and neither is
    // drain_idle_sleep_max until stop() waits for the producers on the
    // calling thread (the group has its own). The group must outlive the host.
    drain_group* group = nullptr;
};

template <class MemoryOps = host_memory>
class transport_host {
public:
    explicit transport_host(transport_options options = {}) : options_(options) {
        if (options_.drain_threads == 0) options_.drain_threads = 1;
        // A drain sleeps 20 us at least, and at most a second (not an hour).
        using std::chrono::microseconds;
        if (options_.drain_idle_sleep_max < microseconds{backoff::min_sleep_us})
            options_.drain_idle_sleep_max = microseconds{backoff::min_sleep_us};
        if (options_.drain_idle_sleep_max > microseconds{1'000'000}) options_.drain_idle_sleep_max = microseconds{1'000'000};
    }
    transport_host(const transport_host&) = delete;
    transport_host& operator=(const transport_host&) = delete;
    ~transport_host() {
        stop();
        for (auto& c : channels_) MemoryOps::release(c->device_block, c->bytes);
    }

    // Adds a channel for one producer; call before start(). Returns nothing
    // usable (an empty ref) if the memory could not be allocated. The sink
    // gets each collected buffer as a std::span<const Record>, or for packed
    // records (packed_records.hpp) as a packed_records<Record>.
    template <class Record, class Sink>
    channel_ref<Record> add_channel(std::string name, std::uint32_t producer_id, std::uint32_t buffers,
                                    std::uint32_t records_per_buffer, Sink sink) {
        constexpr std::uint32_t record_size = channel_record_size<Record>();
        // A packed buffer's byte count is 32 bits (buffer_header::bytes).
        if (packed_record<Record> && std::uint64_t{records_per_buffer} * record_size > UINT32_MAX) return {};
        Sink* held = new Sink(std::move(sink));
        owned_sink owner(held, [](void* p) { delete static_cast<Sink*>(p); });
        const byte_sink consume{[](void* s, const std::byte* bytes, std::uint32_t count, std::uint32_t size) {
                                    if constexpr (packed_record<Record>)
                                        (*static_cast<Sink*>(s))(packed_records<Record>{bytes, count, size});
                                    else
                                        (*static_cast<Sink*>(s))(std::span<const Record>(
                                            reinterpret_cast<const Record*>(bytes), count));
                                },
                                held};
        return {add_byte_channel(std::move(name), producer_id, buffers, records_per_buffer, record_size, consume,
                                 std::move(owner))};
    }

    // Where a channel's full buffers go: to(context, records, count, bytes);
    // bytes is what a packed channel's producer used, 0 for fixed records.
    struct byte_sink {
        void (*to)(void* context, const std::byte* records, std::uint32_t count, std::uint32_t bytes);
        void* context;
    };
    // What a byte_sink's context is, when the channel owns it; null: the caller does.
    using owned_sink = std::unique_ptr<void, void (*)(void*)>;

    // What add_channel does once the record type is gone: a channel of
    // record_size-byte records whose full buffers go to consume. Returns its
    // device block, or nullptr if the memory could not be allocated. (Not a
    // template on the record type, so a host with several record types
    // compiles it once; a plain function pointer rather than std::function,
    // so no host TU compiles std::function's machinery per sink.)
    void* add_byte_channel(std::string name, std::uint32_t producer_id, std::uint32_t buffers,
                           std::uint32_t records_per_buffer, std::uint32_t record_size, byte_sink consume,
                           owned_sink owner = {nullptr, nullptr}) {
        const channel_geometry g = make_geometry(buffers, records_per_buffer, record_size);
        void* device_block = MemoryOps::allocate(g.total_bytes);
        if (!device_block) return nullptr;
        auto c = std::make_unique<channel>();
        c->name = std::move(name);
        c->producer_id = producer_id;
        c->device_block = device_block;
        c->bytes = g.total_bytes;
        c->view = construct_channel(MemoryOps::host_view(device_block), g);
        c->consume = consume;
        c->owner = std::move(owner);
        channels_.push_back(std::move(c));
        return device_block;
    }

    void start() {
        if (!threads_.empty() || in_group_) return;
        stopping_.store(false, std::memory_order_relaxed);
        if (options_.group) {
            in_group_ = true;
            options_.group->join(this, [](void* self) { return static_cast<transport_host*>(self)->drain_all(); });
            return;
        }
        for (std::uint32_t t = 0; t < options_.drain_threads; ++t)
            threads_.emplace_back([this, t] { drain_loop(t, options_.drain_threads); });
    }

    void stop() {
        if (threads_.empty() && !in_group_) return;
        if (in_group_) {
            // Out of the group first: its thread no longer touches these
            // channels once leave returns.
            options_.group->leave(this);
            in_group_ = false;
        }
        deadline_ = std::chrono::steady_clock::now() + options_.stop_timeout;
        stopping_.store(true, std::memory_order_release);
        if (threads_.empty()) {
            drain_loop(0, 1);  // a group member: the same wait for the producers as a drain thread's, here
        } else {
            for (auto& t : threads_) t.join();
            threads_.clear();
        }
        // One last pass on this thread: anything a producer published after a
        // drain thread gave up (stop timeout) is still collected.
        for (auto& c : channels_) drain_channel(*c);
    }

    std::vector<channel_report> report() const {
        std::vector<channel_report> out;
        out.reserve(channels_.size());
        for (const auto& c : channels_) {
            auto& counters = c->view.counters();
            channel_report r;
            r.name = c->name;
            r.producer_id = c->producer_id;
            // Acquire: an exited producer's final counters are visible.
            r.state = static_cast<producer_state>(counters.state.load(std::memory_order_acquire));
            r.produced = counters.produced.load(std::memory_order_relaxed);
            r.dropped = counters.dropped.load(std::memory_order_relaxed);
            r.backstops = counters.backstops.load(std::memory_order_relaxed);
            r.dropped_items = counters.dropped_items.load(std::memory_order_relaxed);
            r.collected = c->collected.load(std::memory_order_relaxed);
            out.push_back(std::move(r));
        }
        return out;
    }

    std::size_t channel_count() const noexcept { return channels_.size(); }

private:
    struct channel {
        std::string name;
        std::uint32_t producer_id = 0;
        void* device_block = nullptr;
        std::size_t bytes = 0;
        channel_view view;
        byte_sink consume{};
        owned_sink owner{nullptr, nullptr};
        std::atomic<std::uint64_t> collected{0};  // one drain thread writes it
    };

    // Hands every ready buffer of the channel (at most `limit`) to its sink
    // and recycles it.
    bool drain_channel(channel& c, std::uint32_t limit = UINT32_MAX) {
        spsc_ring ready = c.view.ready_ring();
        bool any = false;
        std::uint32_t index = 0;
        for (std::uint32_t taken = 0; taken < limit && ready.try_pop(index); ++taken) {
            const std::uint32_t count = c.view.buffer(index).count;
            // Never past the buffer, whatever its header says.
            const std::uint64_t room = std::uint64_t{c.view.geometry().records_per_buffer} * c.view.geometry().record_size;
            const std::uint32_t bytes = c.view.buffer(index).bytes;
            if (count > 0)
                c.consume.to(c.consume.context, c.view.records(index), count,
                              bytes <= room ? bytes : static_cast<std::uint32_t>(room));
            c.collected.store(c.collected.load(std::memory_order_relaxed) + count, std::memory_order_relaxed);
            // Never fails: the free ring holds every buffer. Its release store
            // orders our reads of the buffer before the producer reuses it.
            c.view.free_ring().try_push(index);
            any = true;
        }
        return any;
    }

    bool finished(channel& c) const {
        const auto state = c.view.counters().state.load(std::memory_order_acquire);
        return state != static_cast<std::uint32_t>(producer_state::running) && c.view.ready_ring().empty();
    }

    // A drain group's pass: every channel once, at most as many buffers as
    // it has (what was ready when the pass came), so a producer that keeps
    // one channel busy cannot keep the group's thread from the others.
    bool drain_all() {
        bool any = false;
        for (auto& c : channels_) any |= drain_channel(*c, c->view.geometry().buffer_count);
        return any;
    }

    // Drains channels first, first + stride, ... until stop() and every one
    // of them is finished (or the stop deadline passes).
    void drain_loop(std::uint32_t first, std::uint32_t stride) {
        backoff idle(static_cast<unsigned>(options_.drain_idle_sleep_max.count()));
        for (;;) {
            bool any = false;
            for (std::size_t i = first; i < channels_.size(); i += stride) any |= drain_channel(*channels_[i]);
            if (any) {
                idle.reset();
                continue;
            }
            if (stopping_.load(std::memory_order_acquire)) {
                bool all_finished = true;
                for (std::size_t i = first; i < channels_.size(); i += stride)
                    all_finished = all_finished && finished(*channels_[i]);
                if (all_finished || std::chrono::steady_clock::now() >= deadline_) return;
            }
            idle.wait();
        }
    }

    transport_options options_;
    std::vector<std::unique_ptr<channel>> channels_;
    std::vector<std::thread> threads_;
    std::atomic<bool> stopping_{false};
    bool in_group_ = false;  // started as a member of options_.group, not stopped yet
    std::chrono::steady_clock::time_point deadline_{};
};

}  // namespace dfx
