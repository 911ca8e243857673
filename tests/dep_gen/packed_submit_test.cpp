// The dense dep_gen record (record/dep_gen_records.hpp) through the real
// transport: every submit read back as it was captured, across buffers and
// deps records; a buffer the host cannot walk refused with a clear error;
// under the drop policy a record that does not fit is counted, never
// half-written.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dep_gen_test_support.hpp"
#include "dfx/collect.hpp"
#include "dfx/output/dep_gen_host.hpp"

using namespace dg;

namespace {

using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>, dfx::dep_gen<true>>;
using sink_type = dfx::orchestrator_sink<set::orchestrator, dfx::block<>>;
using view_type = dfx::orchestrator_view<set::orchestrator, dfx::steady_clock_source, sink_type>;

// A submit's inputs, kept alive while it is captured and compared.
struct planned {
    std::uint64_t id = 0;
    std::array<std::int32_t, 3> kernels{-1, -1, -1};
    std::uint32_t block_num = 1;
    bool manual = false, early = false;
    std::vector<dfx::tensor_view> views;
    std::vector<dfx::submit_arg> args;
    std::vector<std::uint64_t> deps;
};

// Submit t: t % 33 arguments (every fifth OUTPUT), t * 37 % 1300 deps (some
// over what one record holds), views that differ in every field read back.
std::vector<planned> plan(std::uint64_t count) {
    std::vector<planned> out(count);
    for (std::uint64_t t = 0; t < count; ++t) {
        planned& p = out[t];
        p.id = (t << 32) | (t * 3);
        p.kernels = {static_cast<std::int32_t>(t % 7) - 1, static_cast<std::int32_t>(t), -1};
        p.block_num = static_cast<std::uint32_t>(t % 4);  // 0 is recorded as 1
        p.manual = t % 6 == 1;
        p.early = t % 5 == 2;
        const std::size_t n = t % 33;
        p.views.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            auto v = view(0x100000 * (t + 1) + 0x100 * i, 64 + i, static_cast<dtype>(i % 15), {4, 4}, {4, 1}, i);
            v.owner_task_id = i % 2 ? t - 1 : dfx::no_task;
            v.version = static_cast<std::int32_t>(i);
            v.manual_dep = i % 4 == 3;
            p.views[i] = i % 3 == 1 ? strided(v, 17 + i) : v;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const auto type = i % 5 == 4 ? arg_type::output : static_cast<arg_type>(i % 5 == 1 ? 2 : (i % 5 == 2 ? 3 : (i % 5 == 3 ? 4 : 0)));
            p.args.push_back({type, type == arg_type::output ? nullptr : &p.views[i]});
        }
        for (std::uint64_t d = 0; d < t * 37 % 1300; ++d) p.deps.push_back(d * 11 + t);
    }
    return out;
}

template <class View>
void capture(View& v, const planned& p) {
    v.capture_submit({.task_id = p.id, .manual_scope = p.manual, .early_dispatch = p.early, .kernel_ids = p.kernels,
                      .block_num = p.block_num, .args = p.args, .explicit_deps = p.deps});
}

bool same_view(const dfx::tensor_view& a, const dfx::tensor_view& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("dense dep_gen records through the transport read back as captured, across buffers and deps records") {
    const auto submits = plan(300);
    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels, {2, 3});  // 12 KiB buffers: the host recycles them many times
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        view_type v{&sink};
        for (const planned& p : submits) capture(v, p);
    }
    host.stop();

    std::uint64_t records = 0;
    for (const planned& p : submits) {
        // The first record is claimed as if every argument had a view: its deps fit that room.
        const std::size_t first = (dfx::dep_gen_max_payload - (p.args.size() + 7) / 8 * 8 - p.args.size() * 88) / 8;
        records += 1;
        if (p.deps.size() > first) records += (p.deps.size() - first + dfx::dep_gen_deps_per_record - 1) / dfx::dep_gen_deps_per_record;
    }
    const auto report = host.report().front();
    CHECK(report.produced == records);
    CHECK(report.collected == records);
    CHECK(report.dropped == 0);
    CHECK(records > submits.size());  // some submits did overflow into deps records

    const auto read = dfx::read_dep_gen_submits(host.stream());
    REQUIRE(read.size() == submits.size());
    for (std::size_t t = 0; t < submits.size(); ++t) {
        const planned& p = submits[t];
        const dfx::dep_gen_submit& s = read[t];
        INFO("submit ", t);
        CHECK(s.task_id == p.id);
        for (int k = 0; k < 3; ++k) CHECK(s.task.kernel_ids[k] == p.kernels[static_cast<std::size_t>(k)]);
        CHECK(s.task.block_num == (p.block_num > 0 ? p.block_num : 1));
        CHECK(s.task.flags == ((p.manual ? dfx::dep_gen_in_manual_scope : 0) | (p.early ? dfx::dep_gen_early_dispatch : 0)));
        CHECK(s.explicit_deps == p.deps);
        CHECK(s.task.dep_count == p.deps.size());
        REQUIRE(s.tensors.size() == p.args.size());
        for (std::size_t i = 0; i < p.args.size(); ++i) {
            CHECK(s.tensors[i].index == i);
            CHECK(s.tensors[i].type == p.args[i].type);
            CHECK(s.tensors[i].has_view == (p.args[i].view != nullptr));
            if (p.args[i].view) CHECK(same_view(s.tensors[i].view, *p.args[i].view));
        }
    }
    const auto dir = std::filesystem::temp_directory_path() / "dfx_dep_gen_packed_round_trip";
    std::filesystem::remove_all(dir);
    CHECK_FALSE(host.write(dir).path.empty());
    std::filesystem::remove_all(dir);
}

TEST_CASE("a buffer whose records cannot be walked is refused by the host with a clear error") {
    for (const std::uint8_t views : {std::uint8_t{50}, std::uint8_t{3}}) {
        dfx::channel_registry channels;
        dfx::dep_gen_host<> host(channels, {2, 2});
        host.start();
        {
            auto sink = channels.sink<sink_type>(0);
            view_type v{&sink};
            v.capture_submit({.task_id = 1});
            // A record committed at 0 payload bytes whose header says otherwise:
            // 50 views run past its slot, 3 past the buffer's bytes.
            dfx::dep_gen_record* r = sink.claim<dfx::dep_gen_record>(0);
            REQUIRE(r);
            *r = header(2);
            r->tensor_count = views;
            r->view_count = views;
            sink.commit<dfx::dep_gen_record>(0);
        }
        host.stop();
        CHECK(host.report().front().balanced());
        const auto dir = std::filesystem::temp_directory_path() / "dfx_dep_gen_packed_malformed";
        std::filesystem::remove_all(dir);
        CHECK_THROWS_WITH_AS(host.write(dir),
                             "malformed dep_gen buffer: 2 records committed in 128 bytes, but they cannot be walked "
                             "past byte 64 (a record runs past the buffer or claims more than its 4096-byte slot)",
                             dfx::output_error);
        CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));
    }
}

TEST_CASE("under the drop policy a record that does not fit is counted as dropped, and what was kept is whole") {
    const auto submits = plan(34);  // submit 32: 32 arguments; submit 33: none
    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels, {1, 2});  // one 8 KiB buffer, not drained while the submits are captured
    using lossy_sink = dfx::producers<dfx::drop, dfx::dep_gen_record>;
    std::uint64_t fits = 0, bytes = 0;
    {
        auto sink = channels.sink<lossy_sink>(0);
        dfx::orchestrator_view<set::orchestrator, dfx::steady_clock_source, lossy_sink> v{&sink};
        for (const planned& p : submits) {
            planned one = p;
            one.deps.resize(std::min<std::size_t>(p.deps.size(), 4));  // one record each
            // Claimed for every argument with a view, committed at what it took.
            const std::size_t views = std::count_if(one.args.begin(), one.args.end(), [](const auto& a) { return a.view; });
            const std::size_t types = (one.args.size() + 7) / 8 * 8, deps = one.deps.size() * 8;
            const std::uint64_t claimed = (32 + types + one.args.size() * 88 + deps + 63) / 64 * 64;
            const std::uint64_t taken = (32 + types + views * 88 + deps + 63) / 64 * 64;
            if (bytes + claimed <= 8192 && fits == static_cast<std::uint64_t>(&p - submits.data())) {
                bytes += taken;
                ++fits;
            }
            capture(v, one);
        }
    }
    host.start();
    host.stop();
    const auto report = host.report().front();
    REQUIRE(fits < submits.size());
    CHECK(report.produced == submits.size());
    CHECK(report.dropped == submits.size() - fits);
    CHECK(report.collected == fits);
    CHECK(report.balanced());
    // What was kept is whole submits, the first `fits` of them.
    const auto read = dfx::read_dep_gen_submits(host.stream());
    REQUIRE(read.size() == fits);
    for (std::size_t t = 0; t < fits; ++t) CHECK(read[t].task_id == submits[t].id);
    CHECK(host.write(std::filesystem::temp_directory_path() / "dfx_dep_gen_packed_drop").refused ==
          "deps.json not written: " + std::to_string(submits.size() - fits) + " of " + std::to_string(submits.size()) +
              " dep_gen records were lost, and a graph with missing tasks or edges would mislead");
}
