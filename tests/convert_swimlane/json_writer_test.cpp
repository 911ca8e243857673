// Number output: Python repr for metadata floats, 6-decimal microseconds for
// trace timestamps, and the atomic file commit.
#include <doctest/doctest.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/background_writer.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/io/atomic_file.hpp"
#include "../support/scratch_dir.hpp"

using test_support::scratch_dir;

namespace {

std::string repr(double x) {
    char buf[48];
    return std::string(buf, dfx::convert::py_float_chars(buf, x));
}

}  // namespace

TEST_CASE("py_float_chars matches Python's repr(float)") {
    // Expected strings are Python 3.11's repr of the same doubles.
    CHECK(repr(10.0) == "10.0");
    CHECK(repr(2.3000000000000003) == "2.3000000000000003");
    CHECK(repr(1e16) == "1e+16");
    CHECK(repr(1e15) == "1000000000000000.0");
    CHECK(repr(1e-5) == "1e-05");
    CHECK(repr(0.0001) == "0.0001");
    CHECK(repr(-0.0) == "-0.0");
    CHECK(repr(123456789012345678.0) == "1.2345678901234568e+17");
    CHECK(repr(5e-324) == "5e-324");
    CHECK(repr(-13.740000000000002) == "-13.740000000000002");
    CHECK(repr(9999999999999998.0) == "9999999999999998.0");
}

TEST_CASE("trace microseconds: at most 6 decimals, integral values keep '.0'") {
    scratch_dir dir;
    const auto path = dir.file("us.json");
    {
        dfx::convert::json_file_writer w(path);
        for (double x : {2.3000000000000003, 10.0, 0.0, -0.0, 0.02, -1.5, 13.740000000000002, 0.0000004, 1e12}) {
            w.append_us(x);
            w.push_back(' ');
        }
        w.commit();
    }
    CHECK(test_support::slurp(path) == "2.3 10.0 0.0 -0.0 0.02 -1.5 13.74 0.0 1000000000000.0 ");
}

TEST_CASE("trace microseconds: every sixth-decimal digit pattern") {
    // x = n + k / 10^6 must print n, '.', then k's six digits without
    // trailing zeros ('0' when k is 0); k sweeps the digit pairs.
    scratch_dir dir;
    const auto path = dir.file("us6.json");
    std::string expected;
    std::uint64_t state = 12345;
    auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
    {
        dfx::convert::json_file_writer w(path);
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t n = (next() >> 33) % 100000000;
            // The multiples of 10^4 (trailing zeros), then values just under 10^6, then any.
            const auto u = static_cast<std::uint64_t>(i);
            const std::uint64_t k = u < 100 ? u * 10000 : u < 200 ? 999999 - u : (next() >> 33) % 1000000;
            w.append_us(static_cast<double>(n) + static_cast<double>(k) / 1e6);
            w.push_back(' ');
            std::string frac = fmt::format("{:06}", k);
            while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
            expected += fmt::format("{}.{} ", n, frac);
        }
        w.commit();
    }
    CHECK(test_support::slurp(path) == expected);
}

TEST_CASE("integers: every digit count, both signs and the extremes, as std::to_chars writes them") {
    dfx::convert::json_buffer b;
    std::string expected;
    auto add = [&](auto v) {
        b.append_int(v);
        b.push_back(' ');
        char tmp[24];
        expected.append(tmp, static_cast<std::size_t>(std::to_chars(tmp, tmp + sizeof tmp, v).ptr - tmp));
        expected += ' ';
    };
    // Each power of ten and its neighbours: where the digit count changes.
    std::uint64_t p = 1;
    for (int d = 0; d < 20; ++d, p *= 10) {
        for (const std::uint64_t u : {p - 1, p, p + 1, 2 * p, 9 * p, p / 2}) add(u);
        if (p <= std::uint64_t{INT64_MAX}) {
            add(-static_cast<std::int64_t>(p));
            add(-static_cast<std::int64_t>(p) + 1);
        }
    }
    add(std::uint64_t{UINT64_MAX});
    add(std::int64_t{INT64_MAX});
    add(std::int64_t{INT64_MIN});
    add(std::int32_t{INT32_MIN});
    add(std::int32_t{-1});
    add(std::uint32_t{UINT32_MAX});
    add(std::int8_t{-128});
    add(std::uint16_t{65535});
    add(0);
    std::uint64_t state = 99;
    for (int i = 0; i < 10000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        add(state >> (state % 64));  // every bit length
        add(static_cast<std::int64_t>(state));
    }
    CHECK(b.view() == expected);
}

TEST_CASE("an uncommitted writer leaves no file behind") {
    scratch_dir dir;
    const auto path = dir.file("partial.json");
    {
        dfx::convert::json_file_writer w(path);
        w.append("{\"traceEvents\": [");
    }
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(std::filesystem::is_empty(std::filesystem::path(path).parent_path()));  // no temporary either
}

TEST_CASE("commit replaces an earlier output, which stays whole until then") {
    scratch_dir dir;
    const auto path = dir.file("trace.json");
    std::ofstream(path) << "old";
    {
        dfx::convert::json_file_writer w(path);
        w.append("new");
        CHECK(test_support::slurp(path) == "old");
        w.commit();
    }
    CHECK(test_support::slurp(path) == "new");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) ++files;
    CHECK(files == 1);  // no temporary left
    {
        dfx::convert::json_file_writer w(path);  // not committed: the earlier output stays
        w.append("lost");
    }
    CHECK(test_support::slurp(path) == "new");
}

TEST_CASE("commit renames over the earlier output: the path is never missing") {
    // inotify sees an unlink of the target (IN_DELETE) exactly when there
    // was a moment without it; a rename over it is IN_MOVED_TO alone.
    scratch_dir dir;
    const auto path = dir.file("trace.json");
    std::ofstream(path) << "old";
    const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    REQUIRE(watch >= 0);
    REQUIRE(::inotify_add_watch(watch, std::filesystem::path(path).parent_path().c_str(), IN_DELETE | IN_MOVED_TO) >= 0);
    {
        dfx::convert::json_file_writer w(path);
        w.append("new");
        w.commit();
    }
    bool deleted = false, moved_in = false;
    alignas(inotify_event) char events[4096];
    for (ssize_t n; (n = ::read(watch, events, sizeof events)) > 0;) {
        for (char* p = events; p < events + n;) {
            const auto* e = reinterpret_cast<const inotify_event*>(p);
            const std::string name = e->len ? e->name : "";
            if (name == "trace.json" && (e->mask & IN_DELETE)) deleted = true;
            if (name == "trace.json" && (e->mask & IN_MOVED_TO)) moved_in = true;
            p += sizeof(inotify_event) + e->len;
        }
    }
    ::close(watch);
    CHECK(moved_in);
    CHECK_FALSE(deleted);
    CHECK(test_support::slurp(path) == "new");
}

TEST_CASE("an output that is an input of the run is refused, the input untouched") {
    scratch_dir dir;
    const auto input = dir.file("records.json");
    std::ofstream(input) << "{}";
    dfx::convert::require_regular_file(input);  // as the readers do when they open it
    const auto link = dir.file("link.json");
    std::filesystem::create_symlink(input, link);
    CHECK_THROWS_WITH_AS(dfx::convert::json_file_writer{link},
                         (link + ": is also an input of this run; choose another output").c_str(),
                         dfx::convert::input_error);
    CHECK(test_support::slurp(input) == "{}");
}

TEST_CASE("output larger than a block arrives whole and in order") {
    // Blocks go to the file from a second thread; strings longer than a block
    // are split across hand-overs. Both must keep every byte in place.
    scratch_dir dir;
    const auto path = dir.file("big.json");
    std::string expected;
    {
        dfx::convert::json_file_writer w(path);
        const std::string chunk(3 << 20, 'x');  // spans several blocks
        for (int i = 0; i < 200000; ++i) {
            w.append_int(i);
            w.push_back(',');
            expected += std::to_string(i) + ',';
            if (i % 50000 == 0) {
                w.append(chunk);
                expected += chunk;
            }
            w.maybe_flush();
        }
        CHECK(w.bytes_written() == expected.size());
        w.commit();
    }
    CHECK(test_support::slurp(path) == expected);
}

TEST_CASE("a device path is written in place, never replaced") {
    // `-o /dev/null` (benchmarks) or a pipe: renaming a temporary over it
    // would replace the device node, so such paths are written directly.
    {
        dfx::convert::json_file_writer w("/dev/null");
        w.append("{}");
        w.commit();
    }
    dfx::io::write_atomically("/dev/null", [](std::FILE* f) { return std::fputs("<html/>", f) >= 0; });
    struct stat st {};
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("a write that fails on the writer thread reaches the caller") {
    // /dev/full fails every write with ENOSPC.
    std::FILE* full = std::fopen("/dev/full", "wb");
    if (full == nullptr) return;
    {
        dfx::convert::background_writer w(full, 1 << 20);
        auto block = w.take();
        std::memset(block.get(), 'x', 1 << 20);
        CHECK(w.hand_over(0, std::move(block), 1 << 20, 1 << 20) == 0);  // queued; the failure comes later
        CHECK(w.finish() == ENOSPC);
        CHECK(w.hand_over(1, w.take(), 1 << 20, 1) == ENOSPC);  // and stops further hand-overs
        // After a failure nothing waits for order: a gap in the numbers
        // (block 2 never comes) must not hold finish() up.
        CHECK(w.hand_over(3, w.take(), 1 << 20, 1) == ENOSPC);
        CHECK(w.finish() == ENOSPC);
    }
    std::fclose(full);
}

TEST_CASE("blocks reach the file in number order, whatever order they come in") {
    scratch_dir dir;
    const auto path = dir.file("ordered.txt");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    {
        dfx::convert::background_writer w(f, 16, 4);
        auto put = [&](std::uint64_t seq, std::string_view text) {
            auto block = w.take();
            std::memcpy(block.get(), text.data(), text.size());
            CHECK(w.hand_over(seq, std::move(block), 16, text.size()) == 0);
        };
        put(2, "c");
        put(1, "b");
        // A grown block (larger than the pool's) is written, then replaced
        // in the pool by a standard one.
        std::unique_ptr<char[]> big(new char[64]);
        std::memcpy(big.get(), "dd", 2);
        CHECK(w.hand_over(3, std::move(big), 64, 2) == 0);
        put(0, "a");
        put(4, "e");
        CHECK(w.finish() == 0);
        for (int i = 0; i < 4; ++i) w.give_back(w.take(), 16);  // all four blocks are back
    }
    std::fclose(f);
    CHECK(test_support::slurp(path) == "abcdde");
}

TEST_CASE("a plain json_buffer grows and keeps every byte") {
    dfx::convert::json_buffer b;
    std::string expected;
    static constexpr const char* eighths[] = {"0", "125", "25", "375", "5", "625", "75", "875"};
    for (int i = 0; i < 5000; ++i) {
        const std::string run(static_cast<std::size_t>(i % 7), 'y');
        b.append_int(i);
        b.append(run);
        b.append_us(i / 8.0);
        b.push_back(',');
        expected += fmt::format("{}{}{}.{},", i, run, i / 8, eighths[i % 8]);
    }
    CHECK(b.view() == expected);
    CHECK(b.capacity() >= b.size());
}
