#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <thread>
#include <vector>

#include "dfx/transport.hpp"

namespace {

using namespace std::chrono_literals;

// A 32-byte record carrying its producer and sequence number, so the sink can
// check that nothing was lost, duplicated or reordered.
struct seq_record {
    std::uint64_t sequence;
    std::uint32_t producer;
    std::uint32_t pad;
    std::uint64_t payload[2];
};
static_assert(sizeof(seq_record) == 32);

seq_record make(std::uint32_t producer, std::uint64_t sequence) {
    return {sequence, producer, 0, {sequence * 3, ~sequence}};
}

// What the host saw from one producer: count, order and content checks.
struct stream_check {
    std::uint64_t received = 0;
    std::uint64_t next_expected = 0;  // in order, every sequence
    std::uint64_t last_seen = 0;
    bool in_order = true;       // strictly increasing (gaps allowed under drop)
    bool contiguous = true;     // no gaps at all
    bool intact = true;         // payload matches the sequence

    void take(const seq_record& r, std::uint32_t producer) {
        if (r.producer != producer || r.payload[0] != r.sequence * 3 || r.payload[1] != ~r.sequence) intact = false;
        if (received > 0 && r.sequence <= last_seen) in_order = false;
        if (r.sequence != next_expected) contiguous = false;
        next_expected = r.sequence + 1;
        last_seen = r.sequence;
        ++received;
    }
};

template <class Overflow>
void produce(dfx::channel_ref<seq_record> ref, std::uint32_t producer_id, std::uint64_t count) {
    dfx::producer<seq_record, Overflow> out{ref};
    for (std::uint64_t i = 0; i < count; ++i) out.push(make(producer_id, i));
}

void spin_for(std::chrono::microseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
    }
}

}  // namespace

TEST_CASE("one producer: every record arrives once, in order, intact") {
    dfx::transport_host<> host;
    stream_check check;
    auto ref = host.add_channel<seq_record>("seq", 0, 4, 256, [&](std::span<const seq_record> records) {
        for (const auto& r : records) check.take(r, 0);
    });
    REQUIRE(ref.device_block != nullptr);
    host.start();
    produce<dfx::block<>>(ref, 0, 100'000);
    host.stop();

    CHECK(check.received == 100'000);
    CHECK(check.contiguous);
    CHECK(check.intact);
    const auto report = host.report();
    REQUIRE(report.size() == 1);
    CHECK(report[0].state == dfx::producer_state::exited);
    CHECK(report[0].produced == 100'000);
    CHECK(report[0].collected == 100'000);
    CHECK(report[0].dropped == 0);
    CHECK(report[0].balanced());
}

TEST_CASE("many producers, two drain threads: every stream complete") {
    constexpr std::uint32_t producers = 6;
    constexpr std::uint64_t per_producer = 200'000;
    dfx::transport_options options;
    options.drain_threads = 2;
    dfx::transport_host<> host(options);
    std::vector<stream_check> checks(producers);
    std::vector<dfx::channel_ref<seq_record>> refs;
    for (std::uint32_t p = 0; p < producers; ++p)
        refs.push_back(host.add_channel<seq_record>("seq", p, 3, 128, [&checks, p](std::span<const seq_record> rs) {
            for (const auto& r : rs) checks[p].take(r, p);
        }));
    host.start();
    std::vector<std::thread> threads;
    for (std::uint32_t p = 0; p < producers; ++p)
        threads.emplace_back([&, p] { produce<dfx::block<>>(refs[p], p, per_producer); });
    for (auto& t : threads) t.join();
    host.stop();

    for (std::uint32_t p = 0; p < producers; ++p) {
        CAPTURE(p);
        CHECK(checks[p].received == per_producer);
        CHECK(checks[p].contiguous);
        CHECK(checks[p].intact);
    }
    const auto t = dfx::totals(host.report());
    CHECK(t.produced == producers * per_producer);
    CHECK(t.collected == producers * per_producer);
    CHECK(t.dropped == 0);
    CHECK(t.balanced());
}

TEST_CASE("block: one- and two-buffer pools, a slow consumer and 10^7 records lose nothing") {
    for (std::uint32_t buffers : {1u, 2u}) {
        CAPTURE(buffers);
        dfx::transport_host<> host;
        stream_check check;
        std::uint64_t buffers_seen = 0;
        auto ref = host.add_channel<seq_record>("slow", 0, buffers, 4096, [&](std::span<const seq_record> rs) {
            spin_for(50us);  // slower than the producer fills a buffer
            ++buffers_seen;
            for (const auto& r : rs) check.take(r, 0);
        });
        host.start();
        produce<dfx::block<>>(ref, 0, 10'000'000);
        host.stop();

        CHECK(check.received == 10'000'000);
        CHECK(check.contiguous);
        CHECK(check.intact);
        CHECK(buffers_seen == (10'000'000 + 4095) / 4096);
        const auto report = host.report();
        CHECK(report[0].dropped == 0);
        CHECK(report[0].backstops == 0);
        CHECK(report[0].balanced());
    }
}

TEST_CASE("drop: a slow consumer loses records, and every loss is counted exactly") {
    for (std::uint32_t buffers : {1u, 2u}) {
        CAPTURE(buffers);
        dfx::transport_host<> host;
        stream_check check;
        auto ref = host.add_channel<seq_record>("lossy", 0, buffers, 4096, [&](std::span<const seq_record> rs) {
            spin_for(200us);
            for (const auto& r : rs) check.take(r, 0);
        });
        host.start();
        std::uint64_t producer_dropped = 0;
        {
            dfx::producer<seq_record, dfx::drop> out{ref};
            for (std::uint64_t i = 0; i < 10'000'000; ++i) out.push(make(0, i));
            out.finish();
            producer_dropped = out.dropped();
        }
        host.stop();

        const auto r = host.report()[0];
        CHECK(r.produced == 10'000'000);
        CHECK(r.collected == check.received);
        CHECK(r.dropped == producer_dropped);
        CHECK(r.collected + r.dropped == r.produced);
        CHECK(check.in_order);
        CHECK(check.intact);
        // 10^7 records at a few ns each against 200 us per 4096-record buffer:
        // the consumer cannot keep up, so the drop path really ran.
        CHECK(r.dropped > 0);
        CHECK(r.backstops == 0);
    }
}

TEST_CASE("a producer exiting mid-buffer publishes its partial buffer") {
    dfx::transport_host<> host;
    stream_check check;
    auto ref = host.add_channel<seq_record>("partial", 0, 2, 256, [&](std::span<const seq_record> rs) {
        for (const auto& r : rs) check.take(r, 0);
    });
    host.start();
    std::thread worker([&] { produce<dfx::block<>>(ref, 0, 1000); });  // 3 full buffers + 232
    worker.join();
    host.stop();
    CHECK(check.received == 1000);
    CHECK(check.contiguous);
    CHECK(host.report()[0].balanced());
}

TEST_CASE("records pushed before the host starts are kept until it does") {
    dfx::transport_host<> host;
    stream_check check;
    auto ref = host.add_channel<seq_record>("early", 0, 8, 64, [&](std::span<const seq_record> rs) {
        for (const auto& r : rs) check.take(r, 0);
    });
    produce<dfx::block<>>(ref, 0, 300);  // fits in the pool without any draining
    host.start();
    host.stop();
    CHECK(check.received == 300);
    CHECK(host.report()[0].balanced());
}

TEST_CASE("stopping the host while producers are parked loses nothing") {
    dfx::transport_host<> host;
    std::atomic<bool> gate{false};
    std::atomic<std::uint64_t> received{0};
    auto ref = host.add_channel<seq_record>("parked", 0, 1, 128, [&](std::span<const seq_record> rs) {
        while (!gate.load()) std::this_thread::sleep_for(1ms);
        received += rs.size();
    });
    host.start();
    std::thread worker([&] { produce<dfx::block<>>(ref, 0, 100'000); });
    std::this_thread::sleep_for(50ms);  // the producer is parked now: its only buffer is with the host
    auto stopping = std::async(std::launch::async, [&] { host.stop(); });
    std::this_thread::sleep_for(50ms);
    CHECK(stopping.wait_for(0ms) == std::future_status::timeout);  // stop waits for the producer
    gate = true;
    worker.join();
    stopping.get();
    CHECK(received == 100'000);
    const auto r = host.report()[0];
    CHECK(r.state == dfx::producer_state::exited);
    CHECK(r.dropped == 0);
    CHECK(r.balanced());
}

TEST_CASE("a producer that never finishes is reported with what it still holds") {
    dfx::transport_options options;
    options.stop_timeout = 100ms;
    dfx::transport_host<> host(options);
    std::uint64_t received = 0;
    auto ref = host.add_channel<seq_record>("stuck", 7, 2, 64, [&](std::span<const seq_record> rs) {
        received += rs.size();
    });
    host.start();
    auto out = std::make_unique<dfx::producer<seq_record, dfx::drop>>(ref);
    for (std::uint64_t i = 0; i < 100; ++i) out->push(make(7, i));  // one full buffer published, 36 held
    std::this_thread::sleep_for(20ms);
    host.stop();

    const auto r = host.report()[0];
    CHECK(r.state == dfx::producer_state::running);
    CHECK(received == 64);
    CHECK(r.collected == 64);
    // The producer keeps its count current on every push, so the host sees
    // exactly the 36 records still in its hands, as lost.
    CHECK(r.produced == 100);
    CHECK(r.unaccounted() == 36);
    CHECK(r.unfinished());
    CHECK(r.lost() == 36);
    CHECK_FALSE(r.balanced());
    out->finish();
    out.reset();
}

TEST_CASE("block: the backstop fires once per stall, drops are counted, and the producer recovers") {
    dfx::transport_host<> host;
    std::atomic<bool> gate{false};
    stream_check check;
    auto ref = host.add_channel<seq_record>("stalled", 0, 1, 64, [&](std::span<const seq_record> rs) {
        while (!gate.load()) std::this_thread::sleep_for(1ms);
        for (const auto& r : rs) check.take(r, 0);
    });
    host.start();
    std::uint64_t produced_during_stall = 0;
    {
        dfx::producer<seq_record, dfx::block<30>> out{ref};
        const auto start = std::chrono::steady_clock::now();
        // Fill the one buffer, then keep pushing while the host holds it.
        std::uint64_t i = 0;
        for (; i < 10'000; ++i) out.push(make(0, i));
        const auto stalled_for = std::chrono::steady_clock::now() - start;
        produced_during_stall = i;
        // One backstop for the whole stall, not one per record.
        CHECK(stalled_for < 2s);
        CHECK(out.dropped() == 10'000 - 64);
        gate = true;
        std::this_thread::sleep_for(20ms);  // the host recycles the buffer
        for (; i < 20'000; ++i) out.push(make(0, i));
    }
    host.stop();
    const auto r = host.report()[0];
    CHECK(produced_during_stall == 10'000);
    CHECK(r.backstops == 1);
    CHECK(r.dropped == 10'000 - 64);
    CHECK(r.collected == 20'000 - r.dropped);
    CHECK(r.balanced());
    CHECK(check.in_order);
    CHECK(check.received == r.collected);
}

TEST_CASE("claim/commit: records written in place, mixed with push, arrive like pushed ones; a dropped claim is counted") {
    // block: a slow consumer and a one-buffer pool; every claim gets a slot.
    {
        dfx::transport_host<> host;
        stream_check check;
        auto ref = host.add_channel<seq_record>("claimed", 0, 1, 512, [&](std::span<const seq_record> rs) {
            spin_for(20us);
            for (const auto& r : rs) check.take(r, 0);
        });
        host.start();
        std::uint64_t null_claims = 0;
        {
            dfx::producer<seq_record, dfx::block<>> out{ref};
            for (std::uint64_t i = 0; i < 1'000'000; ++i) {
                if (i % 3 == 0) {
                    out.push(make(0, i));
                    continue;
                }
                seq_record* r = out.claim();
                if (!r) {
                    ++null_claims;
                    continue;
                }
                *r = make(0, i);
                out.commit();
            }
        }
        host.stop();
        const auto rep = host.report()[0];
        CHECK(null_claims == 0);
        CHECK(check.received == 1'000'000);
        CHECK(check.contiguous);
        CHECK(check.intact);
        CHECK(rep.produced == 1'000'000);
        CHECK(rep.collected == 1'000'000);
        CHECK(rep.dropped == 0);
        CHECK(rep.balanced());
    }
    // drop: claims that find no buffer return nullptr, and each is counted.
    {
        dfx::transport_host<> host;
        stream_check check;
        auto ref = host.add_channel<seq_record>("claimed lossy", 0, 1, 4096, [&](std::span<const seq_record> rs) {
            spin_for(200us);
            for (const auto& r : rs) check.take(r, 0);
        });
        host.start();
        std::uint64_t null_claims = 0;
        std::uint64_t producer_dropped = 0;
        {
            dfx::producer<seq_record, dfx::drop> out{ref};
            for (std::uint64_t i = 0; i < 10'000'000; ++i) {
                seq_record* r = out.claim();
                if (!r) {
                    ++null_claims;
                    continue;
                }
                *r = make(0, i);
                out.commit();
            }
            out.finish();
            producer_dropped = out.dropped();
        }
        host.stop();
        const auto rep = host.report()[0];
        CHECK(null_claims > 0);
        CHECK(producer_dropped == null_claims);
        CHECK(rep.produced == 10'000'000);
        CHECK(rep.dropped == null_claims);
        CHECK(rep.collected == check.received);
        CHECK(rep.collected + rep.dropped == rep.produced);
        CHECK(check.in_order);
        CHECK(check.intact);
    }
}

namespace {

// A packed record (transport/packed_records.hpp): a 16-byte header and 0-200
// payload bytes that all derive from its sequence number.
struct var_record {
    std::uint64_t sequence = 0;
    std::uint32_t size = 0;
    std::uint32_t pad = 0;
    static constexpr std::uint32_t packed_slot_bytes = 256;
    std::uint32_t packed_payload_bytes() const noexcept { return size; }
};

std::uint32_t var_size(std::uint64_t sequence) { return static_cast<std::uint32_t>(sequence * 7 % 201); }
std::byte var_byte(std::uint64_t sequence, std::uint32_t i) { return static_cast<std::byte>(sequence * 31 + i); }

// What the host saw of a packed stream: the seq_record checks, the payload
// bytes, and how full the buffers were.
struct var_check {
    stream_check stream;
    bool payload_intact = true;
    bool walks_intact = true;
    std::uint32_t most_in_a_buffer = 0;

    void take(dfx::packed_records<var_record> buffer) {
        dfx::packed_cursor<var_record> at(buffer);
        std::uint32_t n = 0;
        for (; const var_record* r = at.peek(); at.advance(), ++n) {
            stream.take(make(0, r->sequence), 0);  // order and count; the payload is checked below
            if (r->size != var_size(r->sequence)) payload_intact = false;
            const std::byte* p = dfx::packed_payload(r);
            for (std::uint32_t i = 0; i < r->size; ++i)
                if (p[i] != var_byte(r->sequence, i)) payload_intact = false;
        }
        walks_intact = walks_intact && at.intact();
        most_in_a_buffer = n > most_in_a_buffer ? n : most_in_a_buffer;
    }
};

template <class Overflow>
std::uint64_t produce_var(dfx::channel_ref<var_record> ref, std::uint64_t count) {
    dfx::producer<var_record, Overflow> out{ref};
    std::uint64_t null_claims = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint32_t size = var_size(i);
        var_record* r = out.claim(size);
        if (!r) {
            ++null_claims;
            continue;
        }
        r->sequence = i;
        r->size = size;
        std::byte* p = dfx::packed_payload(r);
        for (std::uint32_t k = 0; k < size; ++k) p[k] = var_byte(i, k);
        out.commit(size);
    }
    out.finish();
    CHECK(out.dropped() == null_claims);
    return null_claims;
}

}  // namespace

TEST_CASE("packed records: variable sizes packed back to back, every one intact and in order; drops counted exactly") {
    // block: a one-buffer pool and a slow consumer; nothing is lost, and a
    // buffer sized for 64 largest records holds more of the smaller ones.
    {
        dfx::transport_host<> host;
        var_check check;
        auto ref = host.add_channel<var_record>("packed", 0, 1, 64, [&](dfx::packed_records<var_record> b) {
            spin_for(20us);
            check.take(b);
        });
        REQUIRE(ref.device_block);
        host.start();
        CHECK(produce_var<dfx::block<>>(ref, 1'000'000) == 0);
        host.stop();
        const auto rep = host.report()[0];
        CHECK(check.stream.received == 1'000'000);
        CHECK(check.stream.contiguous);
        CHECK(check.payload_intact);
        CHECK(check.walks_intact);
        CHECK(check.most_in_a_buffer > 64);
        CHECK(rep.produced == 1'000'000);
        CHECK(rep.collected == 1'000'000);
        CHECK(rep.dropped == 0);
        CHECK(rep.balanced());
    }
    // drop: 10^7 claims against a consumer that cannot keep up.
    {
        dfx::transport_host<> host;
        var_check check;
        auto ref = host.add_channel<var_record>("packed lossy", 0, 1, 256, [&](dfx::packed_records<var_record> b) {
            spin_for(200us);
            check.take(b);
        });
        host.start();
        const std::uint64_t null_claims = produce_var<dfx::drop>(ref, 10'000'000);
        host.stop();
        const auto rep = host.report()[0];
        CHECK(null_claims > 0);
        CHECK(rep.produced == 10'000'000);
        CHECK(rep.dropped == null_claims);
        CHECK(rep.collected == check.stream.received);
        CHECK(rep.balanced());
        CHECK(check.stream.in_order);
        CHECK(check.payload_intact);
        CHECK(check.walks_intact);
    }
}

TEST_CASE("packed records: a channel whose buffers would pass 4 GiB is refused") {
    dfx::transport_host<> host;
    // 2^24 slots of 256 bytes: 4 GiB, one byte past what a buffer's byte count holds.
    const auto ref = host.add_channel<var_record>("huge", 0, 1, 1u << 24, [](dfx::packed_records<var_record>) {});
    CHECK(ref.device_block == nullptr);
    CHECK(host.channel_count() == 0);
}
