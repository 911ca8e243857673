// claim(make) / claim(n, make): a record constructed in its slot from the
// value make() returns (transport/producer.hpp), and emplace_record
// (collect/sink.hpp) on a claiming and a push-only sink. The same accounting
// as claim() and push: every record produced is collected or counted as
// dropped, and make() runs once per record that is kept, never for a drop.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "dfx/collect/producers.hpp"
#include "dfx/collect/sink.hpp"
#include "dfx/transport.hpp"

namespace {

using namespace std::chrono_literals;

// Every field derives from the sequence number, and none is its default, so
// a record not built from make() (left default, or stale in a reused
// buffer) shows.
struct made_record {
    std::uint64_t sequence = 0;
    std::uint64_t check = 0;
    std::uint32_t tag = 0;
    std::uint32_t size = 0;  // packed variant only: payload bytes after the header
    std::uint64_t tail = 0;
};
static_assert(sizeof(made_record) == 32);

made_record made(std::uint64_t sequence) { return {sequence, ~sequence * 5, 0xC1A1u, 0, sequence ^ 0x5A5Au}; }
bool intact(const made_record& r) {
    const made_record want = made(r.sequence);
    return r.check == want.check && r.tag == want.tag && r.tail == want.tail;
}

struct made_stream {
    std::uint64_t received = 0;
    std::uint64_t next = 0;
    bool in_order = true;
    bool contiguous = true;
    bool intact = true;
    void take(const made_record& r) {
        if (received > 0 && r.sequence < next) in_order = false;
        if (r.sequence != next) contiguous = false;
        if (!::intact(r)) intact = false;
        next = r.sequence + 1;
        ++received;
    }
};

void spin_for(std::chrono::microseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
    }
}

// The packed variant: the same header, `size` payload bytes after it.
struct packed_made {
    made_record header;
    static constexpr std::uint32_t packed_slot_bytes = 256;
    std::uint32_t packed_payload_bytes() const noexcept { return header.size; }
};
std::uint32_t payload_of(std::uint64_t sequence) { return static_cast<std::uint32_t>(sequence * 13 % 193); }

// Claims `count` records through claim(make); returns the null claims; counts make() calls.
template <class Overflow>
std::uint64_t produce_made(dfx::channel_ref<made_record> ref, std::uint64_t count, std::uint64_t& make_calls,
                           std::uint64_t& producer_dropped) {
    dfx::producer<made_record, Overflow> out{ref};
    std::uint64_t null_claims = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        made_record* r = out.claim([&] {
            ++make_calls;
            return made(i);
        });
        if (!r) {
            ++null_claims;
            continue;
        }
        out.commit();
    }
    out.finish();
    producer_dropped = out.dropped();
    return null_claims;
}

}  // namespace

TEST_CASE("claim(make): records constructed in their slots from make(), accounted like claim(); make() never runs for a drop") {
    // block: a one-buffer pool and a slow consumer; the buffer is reused, so
    // a slot not rebuilt from make() would show its stale record.
    {
        dfx::transport_host<> host;
        made_stream stream;
        auto ref = host.add_channel<made_record>("made", 0, 1, 256, [&](std::span<const made_record> rs) {
            spin_for(20us);
            for (const auto& r : rs) stream.take(r);
        });
        host.start();
        std::uint64_t make_calls = 0, producer_dropped = 0;
        CHECK(produce_made<dfx::block<>>(ref, 1'000'000, make_calls, producer_dropped) == 0);
        host.stop();
        const auto rep = host.report()[0];
        CHECK(make_calls == 1'000'000);
        CHECK(producer_dropped == 0);
        CHECK(stream.received == 1'000'000);
        CHECK(stream.contiguous);
        CHECK(stream.intact);
        CHECK(rep.produced == 1'000'000);
        CHECK(rep.collected == 1'000'000);
        CHECK(rep.balanced());
    }
    // drop: a consumer that cannot keep up; each drop is counted, and
    // make() ran exactly for the records that were kept.
    {
        dfx::transport_host<> host;
        made_stream stream;
        auto ref = host.add_channel<made_record>("made lossy", 0, 1, 1024, [&](std::span<const made_record> rs) {
            spin_for(200us);
            for (const auto& r : rs) stream.take(r);
        });
        host.start();
        std::uint64_t make_calls = 0, producer_dropped = 0;
        const std::uint64_t null_claims = produce_made<dfx::drop>(ref, 10'000'000, make_calls, producer_dropped);
        host.stop();
        const auto rep = host.report()[0];
        CHECK(null_claims > 0);
        CHECK(producer_dropped == null_claims);
        CHECK(make_calls == 10'000'000 - null_claims);
        CHECK(rep.produced == 10'000'000);
        CHECK(rep.dropped == null_claims);
        CHECK(rep.collected == stream.received);
        CHECK(rep.collected + rep.dropped == rep.produced);
        CHECK(stream.in_order);
        CHECK(stream.intact);
    }
}

TEST_CASE("claim(n, make): a packed header constructed from make(), its payload after it, packed and accounted like claim(n)") {
    dfx::transport_host<> host;
    made_stream stream;
    bool payload_intact = true;
    bool walks_intact = true;
    auto ref = host.add_channel<packed_made>("packed made", 0, 1, 64, [&](dfx::packed_records<packed_made> b) {
        spin_for(20us);
        dfx::packed_cursor<packed_made> at(b);
        for (; const packed_made* r = at.peek(); at.advance()) {
            stream.take(r->header);
            if (r->header.size != payload_of(r->header.sequence)) payload_intact = false;
            const std::byte* p = dfx::packed_payload(r);
            for (std::uint32_t k = 0; k < r->header.size; ++k)
                if (p[k] != static_cast<std::byte>(r->header.sequence + k)) payload_intact = false;
        }
        walks_intact = walks_intact && at.intact();
    });
    host.start();
    std::uint64_t null_claims = 0;
    {
        dfx::producer<packed_made, dfx::block<>> out{ref};
        for (std::uint64_t i = 0; i < 200'000; ++i) {
            const std::uint32_t size = payload_of(i);
            packed_made* r = out.claim(size, [&] {
                packed_made h{made(i)};
                h.header.size = size;
                return h;
            });
            if (!r) {
                ++null_claims;
                continue;
            }
            std::byte* p = dfx::packed_payload(r);
            for (std::uint32_t k = 0; k < size; ++k) p[k] = static_cast<std::byte>(i + k);
            out.commit(size);
        }
    }
    host.stop();
    const auto rep = host.report()[0];
    CHECK(null_claims == 0);
    CHECK(stream.received == 200'000);
    CHECK(stream.contiguous);
    CHECK(stream.intact);
    CHECK(payload_intact);
    CHECK(walks_intact);
    CHECK(rep.collected == 200'000);
    CHECK(rep.balanced());
}

namespace {
// A sink that can only push: emplace_record builds the record and pushes it.
struct push_only_sink {
    std::vector<made_record> pushed;
    void push(const made_record& r) noexcept { pushed.push_back(r); }
};
}  // namespace

TEST_CASE("emplace_record: constructed in the transport's slot on a claiming sink, built and pushed on a push-only one") {
    push_only_sink plain;
    for (std::uint64_t i = 0; i < 3; ++i) dfx::emplace_record<made_record>(plain, [&] { return made(i); });
    REQUIRE(plain.pushed.size() == 3);
    for (std::uint64_t i = 0; i < 3; ++i) {
        CHECK(plain.pushed[i].sequence == i);
        CHECK(intact(plain.pushed[i]));
    }

    dfx::transport_host<> host;
    made_stream stream;
    auto ref = host.add_channel<made_record>("emplaced", 0, 2, 64, [&](std::span<const made_record> rs) {
        for (const auto& r : rs) stream.take(r);
    });
    host.start();
    {
        dfx::producers<dfx::block<>, made_record> sink{ref};
        for (std::uint64_t i = 0; i < 10'000; ++i) dfx::emplace_record<made_record>(sink, [&] { return made(i); });
    }
    host.stop();
    const auto rep = host.report()[0];
    CHECK(stream.received == 10'000);
    CHECK(stream.contiguous);
    CHECK(stream.intact);
    CHECK(rep.produced == 10'000);
    CHECK(rep.balanced());
}
