// dfx::drain_group: several transport hosts drained by one thread, with the
// accounting exact and a host that has stopped never touched again.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <thread>
#include <vector>

#include "dfx/transport.hpp"

namespace {

struct numbered {
    std::uint64_t sequence;
    std::uint64_t producer;
};

// What a sink saw: every record once and in order, and on which threads it ran.
struct sink_log {
    std::uint64_t received = 0;
    bool contiguous = true;
    std::set<std::thread::id> threads;  // written by whichever thread drains the channel: one at a time

    void take(std::span<const numbered> records, std::uint64_t producer) {
        threads.insert(std::this_thread::get_id());
        for (const numbered& r : records) {
            if (r.sequence != received || r.producer != producer) contiguous = false;
            ++received;
        }
    }
};

void produce(dfx::channel_ref<numbered> ref, std::uint64_t producer, std::uint64_t count) {
    dfx::producer<numbered, dfx::block<>> out{ref};
    for (std::uint64_t i = 0; i < count; ++i) out.push({i, producer});
}

// Yields until done() holds; the test fails after 60 s instead of hanging.
template <class Done>
void wait_until(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{60};
    while (!done()) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        std::this_thread::yield();
    }
}

}  // namespace

TEST_CASE("a drain group: the channels of several hosts drained by one thread, every record once, counted exactly") {
    constexpr std::uint64_t per_producer = 300'000;
    constexpr int hosts = 3, channels_per_host = 2;
    dfx::drain_group group;
    dfx::transport_options options;
    options.group = &group;
    options.drain_threads = 2;  // not used by a member: the group's one thread drains it
    std::vector<std::unique_ptr<dfx::transport_host<>>> members;
    std::vector<sink_log> logs(hosts * channels_per_host);
    std::vector<dfx::channel_ref<numbered>> refs;
    for (int h = 0; h < hosts; ++h) {
        members.push_back(std::make_unique<dfx::transport_host<>>(options));
        for (int c = 0; c < channels_per_host; ++c) {
            const std::uint64_t id = static_cast<std::uint64_t>(h * channels_per_host + c);
            refs.push_back(members.back()->add_channel<numbered>(
                "n", static_cast<std::uint32_t>(c), 2, 64, [&logs, id](std::span<const numbered> rs) { logs[id].take(rs, id); }));
            REQUIRE(refs.back().device_block != nullptr);
        }
    }
    CHECK_FALSE(group.running());
    for (auto& m : members) m->start();
    CHECK(group.running());

    std::vector<std::thread> producers;
    for (std::uint64_t id = 0; id < refs.size(); ++id) producers.emplace_back([&, id] { produce(refs[id], id, per_producer); });
    for (auto& p : producers) p.join();
    // Wait until the group has collected everything, so that what stop()
    // drains on this thread does not hide whether the group drained at all.
    wait_until([&] {
        for (auto& m : members)
            for (const auto& r : m->report())
                if (r.collected + r.dropped != per_producer) return false;
        return true;
    });
    for (auto& m : members) m->stop();
    CHECK_FALSE(group.running());

    std::set<std::thread::id> drained_on;
    for (std::size_t id = 0; id < logs.size(); ++id) {
        CAPTURE(id);
        CHECK(logs[id].received == per_producer);
        CHECK(logs[id].contiguous);
        drained_on.insert(logs[id].threads.begin(), logs[id].threads.end());
    }
    CHECK(drained_on.size() == 1);  // one thread for all six channels of three hosts
    CHECK(drained_on.count(std::this_thread::get_id()) == 0);
    for (auto& m : members) {
        const auto t = dfx::totals(m->report());
        CHECK(t.produced == channels_per_host * per_producer);
        CHECK(t.collected == channels_per_host * per_producer);
        CHECK(t.dropped == 0);
        CHECK(t.balanced());
    }
}

TEST_CASE("a member that stops leaves the group: its sink is not called again while the others go on") {
    dfx::drain_group group;
    dfx::transport_options options;
    options.group = &group;
    dfx::transport_host<> first(options), second(options);
    std::atomic<std::uint64_t> first_calls{0}, second_records{0};
    auto first_ref = first.add_channel<numbered>("first", 0, 2, 16, [&](std::span<const numbered>) { ++first_calls; });
    auto second_ref =
        second.add_channel<numbered>("second", 0, 2, 16, [&](std::span<const numbered> rs) { second_records += rs.size(); });
    first.start();
    second.start();

    produce(first_ref, 0, 1'000);  // the producer exits: stop() waits for nothing
    first.stop();
    const std::uint64_t calls_at_stop = first_calls.load();
    CHECK(dfx::totals(first.report()).collected == 1'000);
    CHECK(group.running());  // the second member is still in it

    // A record pushed into the stopped host's channel now stays there: no
    // thread drains the channel of a host that has left.
    {
        dfx::producer<numbered, dfx::drop> late{first_ref};
        for (int i = 0; i < 64; ++i) late.push({0, 0});
    }
    produce(second_ref, 0, 50'000);
    wait_until([&] { return second_records.load() == 50'000; });
    CHECK(first_calls.load() == calls_at_stop);
    second.stop();
    CHECK_FALSE(group.running());
    CHECK(dfx::totals(second.report()).collected == 50'000);
}

TEST_CASE("a group's thread starts with its first member and ends with its last, and starts again for a new one") {
    dfx::drain_group group;
    dfx::transport_options options;
    options.group = &group;
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        dfx::transport_host<> host(options);
        std::uint64_t received = 0;
        auto ref = host.add_channel<numbered>("n", 0, 2, 32, [&](std::span<const numbered> rs) { received += rs.size(); });
        CHECK_FALSE(group.running());
        host.start();
        CHECK(group.running());
        produce(ref, 0, 10'000);
        host.stop();
        CHECK_FALSE(group.running());
        CHECK(received == 10'000);
    }
}

TEST_CASE("a member stopped while its producer still pushes waits for it and collects every record, in order") {
    constexpr std::uint64_t total = 400'000;
    dfx::drain_group group;
    dfx::transport_options options;
    options.group = &group;
    dfx::transport_host<> host(options), other(options);  // another member keeps the group's thread busy
    sink_log log, other_log;
    auto ref = host.add_channel<numbered>("n", 0, 2, 64, [&](std::span<const numbered> rs) { log.take(rs, 7); });
    auto other_ref = other.add_channel<numbered>("o", 0, 2, 64, [&](std::span<const numbered> rs) { other_log.take(rs, 8); });
    host.start();
    other.start();
    std::thread producer([&] { produce(ref, 7, total); });
    std::thread other_producer([&] { produce(other_ref, 8, total); });
    wait_until([&] { return host.report().front().collected > 0; });
    host.stop();  // the producer is still pushing: stop() drains on this thread until it has exited
    producer.join();
    CHECK(log.received == total);
    CHECK(log.contiguous);
    const auto t = dfx::totals(host.report());
    CHECK(t.produced == total);
    CHECK(t.collected == total);
    CHECK(t.balanced());
    other_producer.join();
    other.stop();
    CHECK(other_log.received == total);
    CHECK(other_log.contiguous);

    // And the same host again: it joins the group anew.
    host.start();
    CHECK(group.running());
    produce(ref, 7, 1'000);
    host.stop();
    CHECK(log.received == total + 1'000);
    CHECK_FALSE(group.running());
}
