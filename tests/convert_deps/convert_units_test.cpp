// Unit specification of the small pieces the deps / dump / pmu converters are
// built from: Python-compatible formatting, lenient id parsing, the streaming
// reader, edge-mode interval arithmetic and the DOT / page helpers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "dfx/convert/common/external_sort.hpp"
#include "dfx/convert/common/file_blocks.hpp"
#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/pipelined_handler.hpp"
#include "dfx/convert/common/plain_json.hpp"
#include "dfx/convert/common/py_format.hpp"
#include "dfx/convert/common/py_json.hpp"
#include "dfx/convert/common/py_path.hpp"
#include "dfx/convert/deps/critical_path.hpp"
#include "dfx/convert/deps/deps_html.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/deps_text_streamed.hpp"
#include "dfx/convert/deps/edge_modes.hpp"
#include "dfx/convert/deps/graph_focus.hpp"
#include "dfx/convert/deps/perf_sidecar.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/deps/task_id.hpp"
#include "dfx/convert/dump/dump_viewer.hpp"
#include "../support/json_describe.hpp"
#include "../support/scratch_dir.hpp"

using namespace dfx::convert;

TEST_CASE("py_float_repr prints what Python's repr prints") {
    CHECK(py_float_repr(0.5) == "0.5");
    CHECK(py_float_repr(1.0) == "1.0");
    CHECK(py_float_repr(-0.0) == "-0.0");
    CHECK(py_float_repr(1e16) == "1e+16");
    CHECK(py_float_repr(1e15) == "1000000000000000.0");
    CHECK(py_float_repr(0.0001) == "0.0001");
    CHECK(py_float_repr(0.00001) == "1e-05");
    CHECK(py_float_repr(1.2345678901234567e-300) == "1.2345678901234568e-300");
    CHECK(py_float_repr(2.5e-5) == "2.5e-05");
    CHECK(py_float_repr(0.1 + 0.2) == "0.30000000000000004");
    CHECK(py_float_repr(123456.0) == "123456.0");
}

TEST_CASE("py_format_g matches format(x, '.6g')") {
    CHECK(py_format_g(1234567.0, 6) == "1.23457e+06");
    CHECK(py_format_g(0.25, 6) == "0.25");
    CHECK(py_format_g(-1.0, 4) == "-1");
    CHECK(py_format_g(-std::nan(""), 6) == "nan");
}

TEST_CASE("py_path normalises like pathlib") {
    CHECK(py_path("./a//b/") == "a/b");
    CHECK(py_path("") == ".");
    CHECK(py_path("/x/./y") == "/x/y");
    CHECK(py_path_join(".", "deps_viewer.txt") == "deps_viewer.txt");
    CHECK(py_path_join("args_dump/", "txt") == "args_dump/txt");
    CHECK(py_path_parent("deps.json") == ".");
    CHECK(py_path_parent("a/b/deps.json") == "a/b");
}

TEST_CASE("ids parse with int() leniency: strings, numbers, floats, negatives wrap") {
    simdjson::ondemand::parser parser;
    auto first = [&](const char* json) {
        simdjson::padded_string p{std::string(json)};
        auto doc = parser.iterate(p);
        simdjson::ondemand::array a = doc.get_array();
        simdjson::ondemand::value v = *a.begin();
        return py_int_u64(v);
    };
    CHECK(first("[\"4294967296\"]") == 4294967296u);
    CHECK(first("[\" 1_000 \"]") == 1000u);
    CHECK(first("[7]") == 7u);
    CHECK(first("[7.9]") == 7u);
    CHECK(first("[-1]") == UINT64_MAX);
    CHECK(first("[true]") == 1u);
    CHECK_FALSE(first("[\"0x10\"]").has_value());
    CHECK_FALSE(first("[null]").has_value());
    CHECK_FALSE(first("[\"99999999999999999999999\"]").has_value());
}

TEST_CASE("int() of a string's text: plain digits, signs, underscores and overflow") {
    CHECK(py_int_of_text("18446744073709551615") == std::nullopt);  // beyond int64
    CHECK(detail::parse_py_int_text("18446744073709551615")->magnitude == UINT64_MAX);
    CHECK_FALSE(detail::parse_py_int_text("18446744073709551616").has_value());
    CHECK(detail::parse_py_int_text("9999999999999999999")->magnitude == 9999999999999999999u);  // 19 digits
    CHECK(detail::parse_py_int_text("00000000000000000000042")->magnitude == 42u);
    CHECK(py_int_of_text("-9223372036854775808") == INT64_MIN);
    CHECK(py_int_of_text(" +17\n") == 17);
    CHECK(py_int_of_text("1_000_000") == 1000000);
    for (const char* bad : {"", "-", "+", "1_", "_1", "1__0", "1 0", "12a", "0x10", "--1", "1.5"}) {
        CAPTURE(bad);
        CHECK_FALSE(detail::parse_py_int_text(bad).has_value());
    }
    // Random digit strings of every length up to 21 against from_chars.
    std::mt19937 rng(5);
    for (int k = 0; k < 20000; ++k) {
        std::string digits(1 + rng() % 21, '0');
        for (char& c : digits) c = static_cast<char>('0' + rng() % 10);
        std::uint64_t want = 0;
        const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), want);
        const auto got = detail::parse_py_int_text(digits);
        CAPTURE(digits);
        REQUIRE(got.has_value() == (res.ec == std::errc{}));
        if (got) CHECK(got->magnitude == want);
    }
}

namespace {

struct recorder final : json_member_handler {
    std::vector<std::string> seen;
    member_use use(std::string_view key) override {
        seen.push_back("key:" + std::string(key));
        return key == "a" ? member_use::elements : key == "b" ? member_use::value : member_use::skip;
    }
    void value(std::string_view key, simdjson::padded_string_view json) override {
        seen.push_back(std::string(key) + "=" + std::string(std::string_view(json)));
    }
    void element(std::string_view key, std::size_t i, simdjson::padded_string_view json) override {
        seen.push_back(std::string(key) + "[" + std::to_string(i) + "]=" + std::string(std::string_view(json)));
    }
    void array_end(std::string_view key, std::size_t n) override { seen.push_back(std::string(key) + " len " + std::to_string(n)); }
};

// A file of `text` in the process's scratch directory (removed at exit).
std::string write_temp(const std::string& text) {
    static const test_support::scratch_dir dir;
    static int n = 0;
    return dir.write("input-" + std::to_string(n++) + ".json", text);
}

}  // namespace

TEST_CASE("json_object_stream delivers members and elements across block boundaries") {
    const std::string text = R"({"skip": [1, {"x": "]"}], "a": [{"k": "v\"}"}, 2.5e3, "s", [], null], "b": {"c": [true]}})";
    // Every block size, down to one byte, must give the same result.
    std::vector<std::string> expected;
    for (std::size_t block : {std::size_t{1} << 20, std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
        recorder r;
        json_object_stream(write_temp(text), false, block).run(r);
        if (expected.empty()) expected = r.seen;
        CHECK(r.seen == expected);
    }
    const std::vector<std::string> want = {"key:skip", "skip len 2", "key:a", R"(a[0]={"k": "v\"}"})", "a[1]=2.5e3",
                                           R"(a[2]="s")", "a[3]=[]", "a[4]=null", "a len 5", "key:b", R"(b={"c": [true]})"};
    CHECK(expected == want);
}

TEST_CASE("id_index maps ids as a hash map does, whatever their pattern") {
    // Runs of consecutive ids share slot groups; strides, repeats and
    // random ids must still all be found, and a repeated insert keeps the
    // first value.
    std::mt19937_64 rng(11);
    std::vector<std::vector<std::uint64_t>> patterns(5);
    for (std::uint64_t i = 0; i < 5000; ++i) {
        patterns[0].push_back((std::uint64_t{1} << 32) + i);             // ring 1, consecutive
        patterns[1].push_back(i * 8);                                    // one per group
        patterns[2].push_back(i << 32);                                  // only high bits
        patterns[3].push_back(rng());                                    // random
        patterns[4].push_back(((i % 7) << 32) + i / 7 + (i % 3) * 9);    // interleaved rings, repeats
    }
    // id_index::over, told of the first three quarters of the ids only: the
    // rest (and ids beside the runs) go to its hashed part. Dense patterns
    // get the array, sparse ones the hashed table; the answers are the same.
    enum class built { grown, over };
    const std::vector<bool> want_dense = {true, false, false, false, true};
    for (const built how : {built::grown, built::over})
    for (std::size_t p = 0; p < patterns.size(); ++p) {
        const std::vector<std::uint64_t>& ids = patterns[p];
        CAPTURE(p);
        CAPTURE(static_cast<int>(how));
        id_index index = how == built::grown ? id_index(ids.size() / 4)  // grows on the way
                                             : id_index::over([&](auto&& add) {
                                                   for (std::size_t k = 0; k < ids.size() * 3 / 4; ++k) add(ids[k]);
                                               });
        if (how == built::over) CHECK(index.dense() == want_dense[p]);
        std::unordered_map<std::uint64_t, std::uint32_t> want;
        for (std::uint32_t k = 0; k < ids.size(); ++k) {
            const auto [value, inserted] = index.emplace(ids[k], k);
            const auto [it, want_inserted] = want.emplace(ids[k], k);
            CHECK(inserted == want_inserted);
            CHECK(value == it->second);
        }
        CHECK(index.size() == want.size());
        for (const auto& [id, value] : want) CHECK(index.find(id) == value);
        for (int k = 0; k < 1000; ++k) {
            const std::uint64_t id = rng();
            if (want.count(id) == 0) CHECK(index.find(id) == id_index::npos);
        }
        // Just outside each ring's ids, and in rings it has not seen.
        for (const std::uint64_t id : ids)
            for (const std::uint64_t near : {id - 1, id + 1, id + (std::uint64_t{1} << 32), id ^ (std::uint64_t{1} << 40)})
                if (want.count(near) == 0) CHECK(index.find(near) == id_index::npos);
    }
}

TEST_CASE("id_index::over: empty, one id, ids at the ends of a ring, more rings than the array takes") {
    {
        id_index index = id_index::over([](auto&&) {});
        CHECK(index.find(0) == id_index::npos);
        CHECK(index.emplace(7, 1).second);
        CHECK(index.find(7) == 1);
    }
    {
        // Low words 0 and 2^32-1 around a ring's run (no wrap-around).
        const std::uint64_t ring = std::uint64_t{5} << 32;
        id_index index = id_index::over([&](auto&& add) {
            for (std::uint64_t k = 0; k < 4; ++k) add(ring + k);
        });
        CHECK(index.dense());
        CHECK(index.emplace(ring + 3, 30).second);
        CHECK(index.emplace(ring, 0).second);
        CHECK(index.emplace(ring - 1, 99).second);                    // ring 4's last id: hashed
        CHECK(index.emplace(ring + 0xFFFFFFFFu, 98).second);          // ring 5's last: hashed
        CHECK_FALSE(index.emplace(ring + 3, 31).second);              // the first value stays
        CHECK(index.find(ring + 3) == 30);
        CHECK(index.find(ring + 1) == id_index::npos);
        CHECK(index.find(ring - 1) == 99);
        CHECK(index.find(ring + 0xFFFFFFFFu) == 98);
        CHECK(index.size() == 4);
    }
    {
        // 65 rings of 10 ids: more runs than the array takes, so the hashed table.
        std::vector<std::uint64_t> ids;
        for (std::uint64_t r = 0; r < 65; ++r)
            for (std::uint64_t k = 0; k < 10; ++k) ids.push_back(r << 32 | k);
        id_index index = id_index::over([&](auto&& add) {
            for (std::uint64_t id : ids) add(id);
        });
        CHECK_FALSE(index.dense());
        for (std::uint32_t k = 0; k < ids.size(); ++k) CHECK(index.emplace(ids[k], k).second);
        for (std::uint32_t k = 0; k < ids.size(); ++k) CHECK(index.find(ids[k]) == k);
    }
}

TEST_CASE("for_each_file_block hands over every byte once, with writable padding, mapped or read") {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t padding = simdjson::SIMDJSON_PADDING;
    // Sizes around page boundaries: the last block's padding either stays in
    // the file's last page (mapped) or would leave it (read into a buffer).
    std::vector<std::size_t> sizes = {1, 2, padding, page - padding - 1, page - padding, page - 1, page, page + 1};
    for (std::size_t k = 2 * page - 70; k <= 2 * page + 70; k += 7) sizes.push_back(k);
    std::mt19937 rng(7);
    for (const std::size_t size : sizes) {
        std::string text(size, '\0');
        for (char& c : text) c = static_cast<char>('a' + rng() % 26);
        const std::string path = write_temp(text);
        for (const std::size_t block : {std::size_t{1} << 20, page, std::size_t{1000}, std::size_t{7}}) {
            CAPTURE(size);
            CAPTURE(block);
            std::string seen;
            volatile unsigned char sink = 0;
            const std::uint64_t total = for_each_file_block(path, block, [&](char* p, std::size_t n, std::uint64_t offset) {
                CHECK(offset == seen.size());
                CHECK((n == block || offset + n == size));
                seen.append(p, n);
                p[n] = '\0';  // writable ...
                for (std::size_t i = n; i < n + padding; ++i) sink = static_cast<unsigned char>(sink ^ p[i]);  // ... readable
            });
            CHECK(total == size);
            CHECK(seen == text);
        }
        // The sentinels went into private copies, never into the file.
        std::ifstream in(path, std::ios::binary);
        CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == text);
    }
}

TEST_CASE("for_each_file_block reads a pipe as it arrives, and names a file it cannot open") {
    const std::string fifo = (std::filesystem::temp_directory_path() / "dfx-units-fifo").string();
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string text = R"({"a": [1, 2, 3], "b": {"c": "d"}})";
    std::thread writer([&] { std::ofstream(fifo) << text; });
    std::string seen;
    const std::uint64_t total = for_each_file_block(fifo, 5, [&](char* p, std::size_t n, std::uint64_t offset) {
        CHECK(offset == seen.size());
        seen.append(p, n);
        p[n] = '\0';
    });
    writer.join();
    CHECK(total == text.size());
    CHECK(seen == text);
    std::filesystem::remove(fifo);
    CHECK_THROWS_WITH_AS(for_each_file_block("/nonexistent/deps.json", 64, [](char*, std::size_t, std::uint64_t) {}),
                         "/nonexistent/deps.json: cannot open: No such file or directory", input_error);
}

TEST_CASE("for_each_file_block: a file that shrinks while it is read is an error naming it, not SIGBUS") {
    const std::size_t block = std::size_t{1} << 20;
    const std::string path = write_temp(std::string(3 * block, ' '));
    std::size_t calls = 0;
    CHECK_THROWS_WITH_AS(for_each_file_block(path, block,
                                             [&](char* p, std::size_t n, std::uint64_t) {
                                                 ++calls;
                                                 REQUIRE(::truncate(path.c_str(), 0) == 0);
                                                 // The mapped pages are gone: reading them faulted before.
                                                 volatile char sum = 0;
                                                 for (std::size_t i = 0; i < n; i += 4096) sum = static_cast<char>(sum + p[i]);
                                                 CHECK(sum == 0);
                                             }),
                         (path + ": the file shrank while it was read").c_str(), input_error);
    CHECK(calls == 1);
    std::filesystem::remove(path);
}

TEST_CASE("for_each_file_block has the file read ahead of the block it hands over") {
    // A file that is not in the page cache: while the first block is handed
    // over (and not touched, so no fault reads anything), the last page of
    // an advised step about 40 MiB on comes in. Without the read-ahead
    // nothing asks for it; with steps larger than the kernel reads per call
    // (max(read_ahead_kb, max_sectors_kb) of the device), a step's last
    // page is the part it drops.
    constexpr std::size_t mib = std::size_t{1} << 20;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::string path = write_temp(std::string(48 * mib, ' '));
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::fdatasync(fd) == 0);  // clean pages can be dropped
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    void* const map = ::mmap(nullptr, 48 * mib, PROT_READ, MAP_SHARED, fd, 0);
    REQUIRE(map != MAP_FAILED);
    using read_ahead = dfx::convert::file_blocks_detail::read_ahead;
    const std::size_t probe = 40 * mib + read_ahead::step - page;
    static_assert(40 * mib % read_ahead::step == 0 && 41 * mib < read_ahead::lead);
    const auto resident = [&] {
        unsigned char in = 0;
        REQUIRE(::mincore(static_cast<char*>(map) + probe, page, &in) == 0);
        return (in & 1) != 0;
    };
    struct statfs fs {};
    REQUIRE(::fstatfs(fd, &fs) == 0);
    if (fs.f_type == TMPFS_MAGIC) {
        // tmpfs keeps every page: there is nothing to read ahead.
        MESSAGE("not checked: " << path << " is on tmpfs");
    } else {
        REQUIRE_FALSE(resident());  // the pages were dropped
        bool came = false;
        for_each_file_block(path, mib, [&](char*, std::size_t, std::uint64_t offset) {
            if (offset != 0) return;
            for (int wait = 0; wait < 500 && !(came = resident()); ++wait)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        });
        CHECK(came);
    }
    ::munmap(map, 48 * mib);
    ::close(fd);
}

TEST_CASE("for_each_file_block: a FIFO with no writer and a device are errors within a bounded time") {
    const std::string fifo = (std::filesystem::temp_directory_path() / "dfx-units-fifo-nowriter").string();
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(for_each_file_block(fifo, 64, [](char*, std::size_t, std::uint64_t) {}),
                         doctest::Contains((fifo + ": a pipe with no data").c_str()), input_error);
    std::filesystem::remove(fifo);
    CHECK_THROWS_WITH_AS(for_each_file_block("/dev/zero", 64, [](char*, std::size_t, std::uint64_t) {}),
                         doctest::Contains("/dev/zero: not a regular file"), input_error);
}

TEST_CASE("json_object_stream gives the same members whether the last block is mapped or read") {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::string doc = R"({"a": [{"k": "v"}, [1, 2], 3], "b": {"c": [true]}})";
    const std::vector<std::string> want = {"key:a", R"(a[0]={"k": "v"})", "a[1]=[1, 2]", "a[2]=3", "a len 3",
                                           "key:b", R"(b={"c": [true]})"};
    for (std::size_t size = page - 80; size <= page + 80; ++size) {  // the document, then spaces up to `size`
        const std::string path = write_temp(doc + std::string(size - doc.size(), ' '));
        for (const std::size_t block : {std::size_t{1} << 20, std::size_t{100}}) {
            recorder r;
            json_object_stream(path, false, block).run(r);
            CAPTURE(size);
            CHECK(r.seen == want);
        }
        std::filesystem::remove(path);
    }
}

TEST_CASE("json_object_stream rejects malformed JSON with the file and byte offset") {
    for (const char* bad : {R"({"a": [1, 2})", R"({"a": tru})", R"({"a": 01})", R"({"a": "x)", R"({"a" 1})", R"({"a": 1,})",
                            R"({"a": [1 2]})", "[1]", R"({"a": "\q"})", R"({"a": -})", "{} {}",
                            R"({"a": })", R"({"a": ,1})", R"({"a": [{"b": }]})", R"({"a": [{"b": :1}]})"}) {
        recorder r;
        const std::string path = write_temp(bad);
        CAPTURE(bad);
        try {
            json_object_stream(path, false, 3).run(r);
            FAIL("accepted malformed JSON");
        } catch (const input_error& e) {
            CHECK(std::string(e.what()).find(path) == 0);
        }
    }
}

TEST_CASE("json_object_stream nests up to max_depth and rejects one level more") {
    const std::size_t max = json_object_stream::max_depth;
    // {"a": [ <element> ]}: the top object and the array take two levels.
    auto nested = [](std::size_t levels, char open, char close) {
        std::string inner;
        for (std::size_t k = 0; k < levels; ++k) inner += open == '[' ? "[" : R"({"k": )";
        inner += "1";
        for (std::size_t k = 0; k < levels; ++k) inner += close;
        return R"({"a": [)" + inner + "]}";
    };
    for (const auto& brackets : {std::pair{'[', ']'}, std::pair{'{', '}'}}) {
        const char open = brackets.first, close = brackets.second;
        CAPTURE(open);
        recorder r;
        json_object_stream(write_temp(nested(max - 2, open, close)), false, 4096).run(r);
        CHECK(r.seen.size() == 3);  // key:a, a[0]=..., a len 1
        for (std::size_t block : {std::size_t{1} << 20, std::size_t{7}}) {
            recorder bad;
            CHECK_THROWS_WITH_AS(json_object_stream(write_temp(nested(max - 1, open, close)), false, block).run(bad),
                                 doctest::Contains("nesting too deep"), input_error);
        }
    }
}

TEST_CASE("json_object_stream takes integer runs whole, and still rejects what the general path rejects") {
    // Inside an element, "<int>," and "<int>]" / "<int>}" are read in one
    // step; every other spelling must reach the same verdict as before.
    const std::string good = R"({"a": [[0, 12, 345], {"k": 6789, "l": 0}, [1,2], [[3], {"m": 10}], [-1, 1.5, 2e3, 0 ]]})";
    for (std::size_t block : {std::size_t{1} << 20, std::size_t{1}, std::size_t{3}, std::size_t{5}}) {
        recorder r;
        json_object_stream(write_temp(good), false, block).run(r);
        CHECK(r.seen == std::vector<std::string>{"key:a", R"(a[0]=[0, 12, 345])", R"(a[1]={"k": 6789, "l": 0})", "a[2]=[1,2]",
                                                 R"(a[3]=[[3], {"m": 10}])", "a[4]=[-1, 1.5, 2e3, 0 ]", "a len 5"});
    }
    for (const char* bad : {R"({"a": [[01, 2]]})", R"({"a": [[1, 2}]})", R"({"a": [{"k": 1]}]})", R"({"a": [[1,]]})",
                            R"({"a": [{"k": 1,}]})", R"({"a": [{"k": 1, 2}]})", R"({"a": [[00]]})", R"({"a": [[1 2]]})"}) {
        for (std::size_t block : {std::size_t{1} << 20, std::size_t{1}, std::size_t{4}}) {
            recorder r;
            CAPTURE(bad);
            CAPTURE(block);
            CHECK_THROWS_AS(json_object_stream(write_temp(bad), false, block).run(r), input_error);
        }
    }
}

namespace {

// A random JSON value without backslashes: what plain_value must read as simdjson does.
std::string random_json(std::mt19937& rng, int depth) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    auto ws = [&] { return std::string(static_cast<std::size_t>(pick(3) == 0 ? pick(3) : 0), " \n\t"[pick(3)]); };
    static const char* const strings[] = {"", "a", "12", " 7 ", "-3", "1_000", "x]}", ",:[{", "caf\u00e9", "\u4e2d\u6587", "true"};
    static const char* const numbers[] = {"0", "-0", "7", "-12", "4294967299", "9223372036854775807", "9223372036854775808",
                                          "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1.5",
                                          "-2.5e3", "1e-7", "3E+2", "0.0", "1e400"};
    switch (depth > 3 ? pick(4) : pick(6)) {
    case 0: return numbers[pick(16)];
    case 1: return std::string("\"") + strings[pick(11)] + "\"";
    case 2: return pick(3) == 0 ? "null" : pick(2) ? "true" : "false";
    case 3: return std::to_string(static_cast<int>(rng() % 2000) - 1000);
    case 4: {
        std::string out = "[" + ws();
        for (int i = 0, n = pick(5); i < n; ++i) out += (i ? "," + ws() : "") + random_json(rng, depth + 1) + ws();
        return out + "]";
    }
    default: {
        std::string out = "{" + ws();
        for (int i = 0, n = pick(5); i < n; ++i)
            out += (i ? "," + ws() : "") + "\"" + std::string(1, static_cast<char>('a' + pick(3))) + "\"" + ws() + ":" + ws() +
                   random_json(rng, depth + 1) + ws();
        return out + "}";
    }
    }
}

// plain_value and simdjson On-Demand render `text` alike, whichever way its scalars are read.
void check_reads_alike(const std::string& text) {
    CAPTURE(text);
    REQUIRE(is_plain_json(text));
    simdjson::ondemand::parser parser;
    const simdjson::padded_string padded(text);
    for (const dfx::test::read_with how : dfx::test::all_reads) {
        auto doc = parser.iterate(padded);
        simdjson::ondemand::value v = doc.get_value();
        CHECK(dfx::test::describe(plain_value(text), how) == dfx::test::describe(v, how));
    }
}

}  // namespace

TEST_CASE("deps.json elements with escapes go through simdjson, each string read once") {
    // A long escaped buffer_numel: its text and its int() come from one read
    // (a second get_string() overflowed simdjson's string buffer, under ASan).
    const std::string numel = R"(\u0034)" + std::string("2") + std::string(600, ' ');
    const std::string path = write_temp(R"({"tasks": [], "tensors": [{"tensor_id": "7", "buffer_numel": ")" + numel +
                                        R"(", "dtype": "F\u0031"}], "edges": []})");
    deps::deps_load_options opt;
    opt.details = true;
    const deps::deps_document doc = deps::read_deps(path, opt);
    REQUIRE(doc.tensors.size() == 1);
    CHECK(doc.tensors[0].id == 7);
    CHECK(doc.tensors[0].buffer_numel.present);
    CHECK(doc.tensors[0].buffer_numel.value == std::optional<std::int64_t>(42));
    CHECK(doc.tensors[0].buffer_numel_text == "42");
    CHECK(doc.tensors[0].dtype == std::optional<std::string>("F1"));
}

TEST_CASE("read_deps reads the same on one thread as pipelined") {
    std::string text = R"({"tasks": [)";
    for (int i = 0; i < 3000; ++i)
        text += (i ? ", " : "") + fmt::format(R"({{"task_id": "{}", "kernel_ids": [{}, -1, {}], "block_num": {}}})", i, i % 7, i % 3 - 1, i % 5);
    text += R"(], "edges": [)";
    for (int i = 1; i < 3000; ++i)
        text += (i > 1 ? ", " : "") + fmt::format(R"({{"pred": {}, "succ": "{}", "source": "{}"}})", i / 2, i, i % 2 ? "creator" : "tensormap");
    text += R"(, 7, {"pred": "x", "succ": 1}]})";
    const std::string path = write_temp(text);
    deps::deps_load_options lenient;  // the two unusable edges are dropped (and counted), as the reference does
    lenient.lenient = true;
    const deps::deps_document piped = deps::read_deps(path, lenient, dfx::convert::reader_threads::pipelined);
    const deps::deps_document alone = deps::read_deps(path, lenient, dfx::convert::reader_threads::one_thread);
    REQUIRE(piped.edges.size() == 2999);
    REQUIRE(alone.edges.size() == piped.edges.size());
    for (std::size_t i = 0; i < piped.edges.size(); ++i) {
        CHECK(alone.edges[i].pred == piped.edges[i].pred);
        CHECK(alone.edges[i].succ == piped.edges[i].succ);
        CHECK(alone.edges[i].source == piped.edges[i].source);
    }
    REQUIRE(piped.tasks.size() == 3000);
    REQUIRE(alone.tasks.size() == piped.tasks.size());
    for (std::size_t i = 0; i < piped.tasks.size(); ++i) {
        CHECK(alone.tasks[i].id == piped.tasks[i].id);
        CHECK(alone.tasks[i].slots == piped.tasks[i].slots);
        CHECK(alone.tasks[i].block_num == piped.tasks[i].block_num);
    }
    CHECK(piped.dropped_edges == 2);
    CHECK(alone.dropped_edges == 2);
    // Checked (the default), the first of them is an error at its byte, on either path.
    const std::string at = fmt::format("at byte {}: edges[2999]: expected an object", text.find(", 7, {") + 2);
    CHECK_THROWS_WITH_AS(deps::read_deps(path, {}, dfx::convert::reader_threads::pipelined), doctest::Contains(at.c_str()), input_error);
    CHECK_THROWS_WITH_AS(deps::read_deps(path, {}, dfx::convert::reader_threads::one_thread), doctest::Contains(at.c_str()), input_error);
}

TEST_CASE("the deps text is the same bytes whatever the chunk size") {
    // Nodes are formatted in chunks on two threads; chunks of 1 and 7 nodes
    // put a thread boundary everywhere (and, under TSan, every shared read).
    std::string text = R"({"tasks": [)";
    for (int i = 0; i < 300; ++i)
        text += (i ? ", " : "") + fmt::format(R"({{"task_id": "{}", "kernel_ids": [{}, -1, -1], "block_num": {}}})", i, i % 7, 1 + i % 3);
    text += R"(], "edges": [)";
    for (int i = 1; i < 300; ++i) {
        text += (i > 1 ? ", " : "") + fmt::format(R"({{"pred": {}, "succ": {}}})", i / 2, i);
        if (i % 5 == 0) text += fmt::format(R"(, {{"pred": {}, "succ": {}}})", i / 3, i);
    }
    text += "]}";
    const std::string path = write_temp(text);
    const deps::deps_graph g = deps::build_graph(deps::read_deps(path), {}, nullptr);
    const deps::edge_selection sel = deps::select_edges(g, deps::edge_mode::full);
    std::vector<std::string> outputs;
    for (const std::size_t chunk : {std::size_t{2048}, std::size_t{1}, std::size_t{7}}) {
        const std::string out_path = path + ".txt";
        {
            json_file_writer out(out_path);
            deps::write_deps_text(out, g, sel, "deps.json", chunk);
            out.commit();
        }
        std::ifstream in(out_path, std::ios::binary);
        outputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        std::filesystem::remove(out_path);
    }
    REQUIRE(outputs[0].find("=== TASK 299 ") != std::string::npos);
    CHECK(outputs[1] == outputs[0]);
    CHECK(outputs[2] == outputs[0]);
}

namespace {

// What `write(out)` writes to a file.
template <class Write>
std::string written(const std::string& path, Write&& write) {
    const std::string out_path = path + ".txt";
    {
        json_file_writer out(out_path);
        write(out);
        out.commit();
    }
    std::ifstream in(out_path, std::ios::binary);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::filesystem::remove(out_path);
    return text;
}

std::string text_view(const deps::deps_graph& g, const deps::edge_selection& sel, const std::string& path) {
    return written(path, [&](json_file_writer& out) { deps::write_deps_text(out, g, sel, "deps.json", 5); });
}

deps::sidecar_task_ids sorted_ids(const std::vector<std::uint64_t>& ids, std::size_t budget_bytes) {
    external_sorter<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> s(budget_bytes);
    for (std::uint64_t id : ids) s.push(id);
    return std::move(s).finish();
}

// The full graph's text view as `dfx deps` writes it: streamed through
// sorters of `budget` bytes (small ones spill every few records), read
// `chunk` nodes at a time.
std::string streamed_text_view(const std::string& path, const deps::name_map& names,
                               const std::vector<std::uint64_t>* sidecar_ids, std::size_t budget, std::size_t chunk) {
    deps::text_spill spill(budget);
    deps::read_deps(path, spill, {});
    std::optional<deps::sidecar_task_ids> sidecar;
    if (sidecar_ids) sidecar.emplace(sorted_ids(*sidecar_ids, budget));
    deps::text_view_files view(spill, names, sidecar ? &*sidecar : nullptr);
    return written(path, [&](json_file_writer& out) {
        deps::write_deps_text(out, view.summary, view.fmt, "deps.json", view, chunk);
    });
}

}  // namespace

TEST_CASE("the text view of a lean graph is the text view of the full graph") {
    // Tasks of every kind (kernels, a dummy, a repeated id whose last entry
    // wins, off ring 0), nodes named only by an edge or only by the sidecar,
    // pairs with several rows and with and without a creator row (which the
    // reduced mode keeps); with and without a sidecar and a name map.
    const std::string text = R"({"tasks": [
        {"task_id": "0", "kernel_ids": [1, -1, -1], "block_num": 4},
        {"task_id": "1", "kernel_ids": [-1, 2, 2]},
        {"task_id": "2", "kernel_ids": [-1, -1, -1]},
        {"task_id": "3", "kernel_ids": [3, 4, -1], "block_num": 2},
        {"task_id": "1", "kernel_ids": [5, -1, -1], "block_num": 3},
        {"task_id": "7", "kernel_ids": [-1, -1, -1]},
        {"task_id": "4294967300", "kernel_ids": [6, -1, -1]}],
      "tensors": [{"tensor_id": 5}, {"tensor_id": 6}, {"tensor_id": 5}],
      "edges": [{"pred": 0, "succ": 1, "source": "creator"}, {"pred": 1, "succ": 2},
                {"pred": 0, "succ": 2, "source": "creator"}, {"pred": 0, "succ": 3},
                {"pred": 2, "succ": 3}, {"pred": 0, "succ": 3, "source": "tensormap"},
                {"pred": 9, "succ": 3}, {"pred": 3, "succ": 4294967300}, {"pred": 0, "succ": 1}]})";
    const std::string path = write_temp(text);
    const deps::sidecar_tasks sidecar = {{3, {"aic", false}}, {11, {"aiv", false}}, {0, {"aic", true}}};
    std::vector<std::uint64_t> sidecar_ids;
    for (const auto& entry : sidecar) sidecar_ids.push_back(entry.first);
    deps::name_map names;
    names.nonempty = true;
    names.names = {{"1", "matmul"}, {"-1", "from_records"}};
    deps::name_map unnamed;  // an object with no usable key
    unnamed.nonempty = true;
    deps::name_map none;

    for (const deps::name_map* map : {&none, &names, &unnamed})
        for (const bool with_sidecar : {false, true})
            for (const deps::edge_mode mode : {deps::edge_mode::full, deps::edge_mode::reduced, deps::edge_mode::omitted}) {
                CAPTURE(map->names.size());
                CAPTURE(with_sidecar);
                const std::string mode_name = deps::to_string(mode);
                CAPTURE(mode_name);
                const deps::deps_graph full = deps::build_graph(deps::read_deps(path), *map, with_sidecar ? &sidecar : nullptr);
                deps::deps_graph lean = deps::start_graph(deps::read_deps(path));
                deps::finish_graph_lean(lean, *map, with_sidecar ? &sidecar_ids : nullptr);
                CHECK(lean.meta.empty());
                CHECK(lean.rows.empty());
                CHECK(lean.doc.edges.empty());
                const deps::edge_selection full_sel = deps::select_edges(full, mode);
                const deps::edge_selection lean_sel = deps::select_edges(lean, mode);
                CHECK(lean_sel.removed == full_sel.removed);
                const std::string want = text_view(full, full_sel, path);
                REQUIRE(want.find("TASK (1, 4) kind=submit func_id=[6,-1,-1]") != std::string::npos);
                CHECK(text_view(lean, lean_sel, path) == want);
                if (mode != deps::edge_mode::full) continue;
                // ... and so is the streamed one, which holds no graph: in memory, or spilled every 2 records.
                for (const std::size_t budget : {std::size_t{1} << 20, std::size_t{64}})
                    for (const std::size_t chunk : {std::size_t{1}, std::size_t{4}, std::size_t{2048}})
                        CHECK(streamed_text_view(path, *map, with_sidecar ? &sidecar_ids : nullptr, budget, chunk) == want);
            }
}

TEST_CASE("the streamed text view is the in-memory one on random graphs, whatever the budget") {
    // Ids on two rings or one, repeated and dummy tasks, tasks with no edge,
    // repeated pairs, self-loops and far peers; sidecar ids in and out of
    // the graph, repeated.
    std::mt19937_64 rng(7);
    for (int round = 0; round < 40; ++round) {
        CAPTURE(round);
        const std::uint64_t n = 1 + rng() % 300;
        const bool rings = round % 3 == 0;
        auto id = [&](std::uint64_t local) { return (rings && local % 5 == 0 ? std::uint64_t{1} << 32 : 0) | local; };
        std::string text = R"({"tasks": [)";
        for (std::uint64_t i = 0; i < n + n / 4; ++i) {
            const std::uint64_t t = i < n ? i : rng() % n;
            const std::int64_t k = static_cast<std::int64_t>(rng() % 4) - 1;
            text += (i ? ", " : "") + fmt::format(R"({{"task_id": {}, "kernel_ids": [{}, {}, -1], "block_num": {}}})", id(t), k,
                                                   k == 0 ? 3 : -1, 1 + rng() % 3);
        }
        text += R"(], "tensors": [)";
        for (std::uint64_t i = 0; i < n % 7; ++i) text += (i ? ", " : "") + fmt::format(R"({{"tensor_id": {}}})", rng() % 4);
        text += R"(], "edges": [)";
        const std::uint64_t edges = rng() % (3 * n);
        for (std::uint64_t e = 0; e < edges; ++e) {
            const std::uint64_t succ = rng() % (n + 5);
            const std::uint64_t pred = rng() % 10 == 0 ? rng() % (n + 5) : succ - std::min(succ, rng() % 6);
            text += (e ? ", " : "") + fmt::format(R"({{"pred": {}, "succ": {}}})", id(pred), id(succ));
        }
        text += "]}";
        const std::string path = write_temp(text);
        std::vector<std::uint64_t> sidecar_ids;
        for (std::uint64_t i = 0; i < n / 3; ++i) sidecar_ids.push_back(id(rng() % (n + 20)));
        deps::name_map names;
        names.nonempty = round % 2 == 0;
        names.names = {{"2", "f2"}};
        deps::sidecar_tasks sidecar;
        for (std::uint64_t s : sidecar_ids) sidecar.push_back({s, {"aiv", false}});
        const bool with_sidecar = round % 4 != 1;
        const deps::deps_graph g = deps::build_graph(deps::read_deps(path), names, with_sidecar ? &sidecar : nullptr);
        const std::string want = text_view(g, deps::select_edges(g, deps::edge_mode::full), path);
        for (const std::size_t budget : {std::size_t{40}, std::size_t{1000}, std::size_t{1} << 20})
            CHECK(streamed_text_view(path, names, with_sidecar ? &sidecar_ids : nullptr, budget, 1 + rng() % 50) == want);
    }
}

TEST_CASE("plain_value reads a validated value exactly as simdjson On-Demand does") {
    for (const char* text : {"[]", "{}", "[[],{}]", R"({"a": 1, "a": "2"})", R"([ 1 , -2 ,3.5e1 ])", R"("x]},")",
                             R"({"k": [true, false, null], "s": " 42 "})", R"(["1_0", "_1", "+5", "", "1e3"])",
                             "[18446744073709551615, -1, 9223372036854775808]", R"({"café": "中"})"}) {
        check_reads_alike(std::string("[") + text + "]");  // On-Demand reads scalars only inside a document
    }
    std::mt19937 rng(20261130);
    for (int i = 0; i < 3000; ++i) {
        // Built by appending: g++ 12 at -O3 warns falsely (-Wrestrict, GCC bug
        // 105329) inside libstdc++ on `"literal" + std::string&&`.
        std::string text = "[";
        text += random_json(rng, 0);
        text += ']';
        check_reads_alike(text);
    }
    // Containers are skipped 16 bytes at a time: brackets inside strings, and
    // strings and containers across those steps, at every offset.
    for (std::size_t pad = 0; pad < 40; ++pad) {
        const std::string gap(pad, ' ');
        check_reads_alike("[" + gap + R"([{"k]": "v}[{", "long key past sixteen bytes": [1, [2, "]]"]]}, "x"], {"a": {}}, ")" +
                          std::string(pad % 7, 'q') + R"(", []])");
    }
    CHECK_FALSE(is_plain_json(R"(["a\"b"])"));   // an escape: simdjson's job
    for (std::size_t at = 0; at < 45; ++at) {  // a backslash or a bad byte found anywhere (16-byte step, word or tail)
        std::string text(45, 'x');
        CHECK(is_plain_json(text));
        text[at] = '\\';
        CHECK_FALSE(is_plain_json(text));
        text[at] = '\xc3';  // a lone lead byte
        CHECK_FALSE(is_plain_json(text));
        text.replace(at, 1, "\xc3\xa9");  // é
        CHECK(is_plain_json(text));
    }
    CHECK_FALSE(is_plain_json("[\"\xff\"]"));  // not UTF-8: simdjson reports it
}

TEST_CASE("the sidecar joins each AICPU row to the last AICore row of its key, keys dense or spread") {
    // (core_id, reg_task_id) -> token; the key is core << 32 ^ reg, so leniently a
    // reg_task_id above 2^32-1 names another core's key: (0, 2^32 + 1) is (1, 1).
    // The join looks keys up in a table per core when they are dense, in the
    // sorted rows when one is far from the others: both answer alike.
    auto join = [](const std::string& extra_aicore, const std::string& extra_aicpu) {
        const std::string path = write_temp(R"({"chip_swimlane_level": 2,
            "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},
            "aicore_tasks": [[0, 10, 1, 0, 1, 0], [0, 11, 2, 0, 1, 0], [1, 12, 1, 0, 1, 0], [0, 13, 1, 0, 1, 0])" +
                                            extra_aicore + R"(],
            "aicpu_tasks": [[0, 1, 0, 0], [0, 2, 0, 0], [1, 1, 0, 0], [1, 7, 0, 0], [2, 1, 0, 0], [0, 4294967297, 0, 0])" +
                                            extra_aicpu + "]}");
        std::string s;
        std::vector<std::uint64_t> ids;
        for (const auto& [id, t] : deps::read_perf_sidecar(path, /*lenient=*/true)) {
            s += std::to_string(id) + ":" + t.core_type + (t.mixed ? "(mix) " : " ");
            ids.push_back(id);
        }
        CHECK(deps::read_perf_sidecar_ids(path, /*lenient=*/true) == ids);  // the text view's read: the same tasks
        // The streamed text view's read: the same tasks, sorted, in memory or spilled a record a run.
        std::sort(ids.begin(), ids.end());
        for (const std::size_t budget : {std::size_t{1} << 20, std::size_t{8}}) {
            std::vector<std::uint64_t> sorted;
            deps::sidecar_task_ids r = deps::read_perf_sidecar_ids_sorted(path, /*lenient=*/true, budget);
            while (const std::uint64_t* id = r.next())
                if (sorted.empty() || sorted.back() != *id) sorted.push_back(*id);
            CHECK(sorted == ids);
        }
        return s;
    };
    // 13 replaced 10 at (0, 1); (1, 7) and (2, 1) join nothing; (0, 2^32 + 1) is 12's key, from core 0: mixed.
    CHECK(join("", "") == "13:aic 11:aic 12:aiv(mix) ");
    // A key 4*10^9 slots away: sorted, the same answer and the far row's task.
    CHECK(join(", [1, 14, 4000000000, 0, 1, 0]", ", [1, 4000000000, 0, 0]") == "13:aic 11:aic 12:aiv(mix) 14:aiv ");
    // A core id beyond the rows' count: sorted too.
    CHECK(join(", [4000000000, 15, 1, 0, 1, 0]", ", [4000000000, 1, 0, 0]") == "13:aic 11:aic 12:aiv(mix) 15:aiv ");
    // Leniently an AICore row's reg_task_id above 2^32-1 too (its high word is
    // kept apart): (0, 2^32 + 1) is (1, 1)'s key, later than 12's row, so both
    // AICPU rows of that key join 16.
    CHECK(join(", [0, 16, 4294967297, 0, 1, 0]", "") == "13:aic 11:aic 16:aiv(mix) ");
}

TEST_CASE("the records beside deps.json are read by records_reader, checked or leniently") {
    // Leniently the reference's reading of a negative id (masked to u64) is kept; checked it is an error.
    const std::string path = write_temp(R"({"chip_swimlane_level": 2,
        "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},
        "aicore_tasks": [[0, 10, 1, 0, 1, 0], [1, -13, 2, 0, 1, 0], [0, 12, 3, 0, 1, 0]],
        "aicpu_tasks": [[0, 1, 0, 0], [1, 2, 0, 0], [0, 3, 0, 0], [1, 5, 0, 0]]})");
    const deps::sidecar_tasks tasks = deps::read_perf_sidecar(path, /*lenient=*/true);
    REQUIRE(tasks.size() == 3);
    CHECK((tasks[0].first == 10 && tasks[0].second.core_type == "aic"));
    CHECK((tasks[1].first == std::uint64_t{0} - 13 && tasks[1].second.core_type == "aiv"));
    CHECK((tasks[2].first == 12 && tasks[2].second.core_type == "aic"));
    CHECK_THROWS_WITH_AS(deps::read_perf_sidecar(path), doctest::Contains("aicore_tasks[1]: task_token_raw must not be negative"), input_error);
    // A string or fractional id: the reference's read_perf_data fails on it (its ring id is
    // token >> 32), and so does the lenient read, as `dfx swimlane --lenient` reads it (the
    // viewer then warns and goes on without the sidecar). The old second reader took int() of it.
    for (const char* id : {R"("11")", "12.0"}) {
        const std::string bad = write_temp(std::string(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1},
            "aicore_tasks": [[0, )") + id + ", 1, 0, 1, 0]]}");
        CHECK_THROWS_WITH_AS(deps::read_perf_sidecar(bad, true), doctest::Contains("aicore_tasks[0][1]"), input_error);
        CHECK_THROWS_WITH_AS(deps::read_perf_sidecar(bad), doctest::Contains("aicore_tasks[0][1]"), input_error);
    }
    // Too short a row is an error naming it, either way.
    for (const char* row : {"[0, 10]", R"([0, "10"])"}) {
        const std::string bad = write_temp(std::string(R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 1},
            "aicore_tasks": [)") + row + "]}");
        CHECK_THROWS_WITH_AS(deps::read_perf_sidecar(bad, true), doctest::Contains("aicore_tasks[0]"), input_error);
        CHECK_THROWS_WITH_AS(deps::read_perf_sidecar(bad), doctest::Contains("aicore_tasks[0]"), input_error);
    }
}

TEST_CASE("deps.json: one reader, one verdict for the viewer and the swimlane") {
    namespace sw = dfx::convert::swimlane;
    // Checked, the swimlane's read fails exactly where read_deps does, with the same message.
    for (const char* text : {R"({"tasks": [{"task_id": "1", "kernel_ids": [0, -1]}], "edges": []})",
                             R"({"tasks": [{"task_id": "1"}], "tensors": [{"tensor_id": true}], "edges": []})",
                             R"({"tasks": [], "tensors": 5, "edges": []})",
                             R"({"edges": [{"pred": "1", "succ": "2", "pred": "3"}]})",
                             R"({"edges": [{"pred": "1", "succ": "2"}, 7]})"}) {
        const std::string path = write_temp(text);
        std::string viewer, swimlane;
        try {
            (void)deps::read_deps(path);
        } catch (const input_error& e) {
            viewer = e.what();
        }
        try {
            (void)sw::load_deps_graph(path, nullptr, sw::deps_policy::required);
        } catch (const input_error& e) {
            swimlane = e.what();
        }
        CAPTURE(text);
        CHECK(!viewer.empty());
        CHECK(viewer == swimlane);
    }
    // Leniently each keeps its reference's reading (deps_dialect): kernel_ids of two are padded by the
    // viewer and no kernel entry for the swimlane; block_num "4" is int()'d by the viewer, 1 for the swimlane.
    const std::string path = write_temp(R"({"tasks": [{"task_id": "1", "kernel_ids": [0, 3], "block_num": "4"},
        {"task_id": "2", "kernel_ids": [1, -1, -1], "block_num": 2.5}], "edges": {}})");
    deps::deps_load_options lenient;
    lenient.lenient = true;
    const deps::deps_document doc = deps::read_deps(path, lenient);
    REQUIRE(doc.tasks.size() == 2);
    CHECK(doc.tasks[0].slots == std::array<std::int64_t, 3>{0, 3, -1});
    CHECK(doc.tasks[0].block_num == 4);
    CHECK(doc.tasks[1].block_num == 2);
    const sw::deps_graph g = sw::load_deps_graph(path, nullptr, sw::deps_policy::optional, true);
    CHECK(!g.edges_usable);  // `edges` not a list: the converter's "no usable deps.json"
    CHECK(g.kernel_ids(1) == nullptr);
    REQUIRE(g.kernel_ids(2) != nullptr);
    CHECK(g.kernel_ids(2)->ids[0] == 1);
    REQUIRE(g.block(1) != nullptr);
    CHECK(g.block(1)->block_num == 1);
    CHECK(g.block(2)->block_num == 1);
}

namespace {

// Records what reaches the handler after use(); throws at element `fail_at`.
struct event_log final : json_member_handler {
    std::vector<std::string> seen;
    std::size_t fail_at = SIZE_MAX;
    member_use use(std::string_view key) override { return key == "b" ? member_use::value : member_use::elements; }
    void value(std::string_view key, simdjson::padded_string_view json) override {
        seen.push_back(std::string(key) + "=" + std::string(std::string_view(json)));
    }
    void element(std::string_view key, std::size_t i, simdjson::padded_string_view json) override {
        if (i == fail_at) throw input_error("element " + std::to_string(i) + " is bad");
        // Parse it, as a real handler does: the padding must be there.
        simdjson::ondemand::parser parser;
        auto doc = parser.iterate(json);
        std::int64_t v = 0;
        if (doc.get_int64().get(v) != simdjson::SUCCESS) v = -1;
        seen.push_back(std::string(key) + "[" + std::to_string(i) + "]=" + std::to_string(v));
    }
    void array_end(std::string_view key, std::size_t n) override { seen.push_back(std::string(key) + " len " + std::to_string(n)); }
};

std::string many_elements(std::size_t n, const char* tail = "}") {
    std::string text = R"({"b": {"x": 1}, "a": [)";
    for (std::size_t i = 0; i < n; ++i) text += (i ? ", " : "") + std::to_string(i * 7);
    return text + "], \"c\": [\"s\"]" + tail;
}

}  // namespace

TEST_CASE("pipelined reading delivers exactly what the direct run delivers, in order") {
    // 300k elements: many batches in flight between the two threads.
    const std::string path = write_temp(many_elements(300000));
    event_log direct, piped;
    json_object_stream(path).run(direct);
    run_pipelined(json_object_stream(path), piped);
    REQUIRE(direct.seen.size() == 300000 + 4);
    CHECK(piped.seen == direct.seen);
}

TEST_CASE("pipelined reading reports the first error in file order") {
    SUBCASE("the handler fails before the malformed tail: the handler's error") {
        event_log h;
        h.fail_at = 250000;
        const std::string path = write_temp(many_elements(300000, "} trailing"));
        CHECK_THROWS_WITH_AS(run_pipelined(json_object_stream(path), h), "element 250000 is bad", input_error);
    }
    SUBCASE("the file is malformed before the handler's failure: the scanner's error") {
        event_log h;
        h.fail_at = 250000;
        std::string text = many_elements(300000);
        text.replace(text.find(", 700,"), 6, ", 7x0,");  // element 100 is not JSON
        const std::string path = write_temp(text);
        try {
            run_pipelined(json_object_stream(path), h);
            FAIL("accepted malformed JSON");
        } catch (const input_error& e) {
            CHECK(std::string(e.what()).find("invalid JSON") != std::string::npos);
        }
    }
    SUBCASE("a truncated file after every element was handled: the scanner's error") {
        event_log h;
        std::string text = many_elements(1000);
        text.pop_back();
        CHECK_THROWS_WITH_AS(run_pipelined(json_object_stream(write_temp(text)), h),
                             doctest::Contains("unexpected end of file"), input_error);
    }
}

TEST_CASE("interval helpers: merge, intersect, cover") {
    using deps::detail::intervals;
    CHECK(deps::detail::merge_intervals({{5, 7}, {0, 2}, {2, 4}, {6, 9}}) == intervals{{0, 4}, {5, 9}});
    CHECK(deps::detail::intersect_intervals({{0, 4}, {5, 9}}, {{3, 6}}) == intervals{{3, 4}, {5, 6}});
    CHECK(deps::detail::intervals_cover({{0, 4}}, {{0, 2}, {2, 4}}));
    CHECK_FALSE(deps::detail::intervals_cover({{0, 4}}, {{0, 2}, {3, 4}}));
}

TEST_CASE("task ids print as local ids, or (ring, local) once any task is off ring 0") {
    CHECK(deps::task_formatter({1, 2})(2) == "2");
    CHECK(deps::task_formatter({1, (1ull << 32) | 3})(2) == "(0, 2)");
    CHECK(deps::dot_node_id((1ull << 32) | 3) == "T1_3");
}

TEST_CASE("page helpers") {
    CHECK(deps::detail::json_quote("a\u00B7b</script>") == "\"a\\u00b7b\\u003c/script\\u003e\"");
    CHECK(deps::detail::xml_unescape("edge hidden&#45;edge") == "edge hidden-edge");
    const std::string svg =
        "<svg><g id=\"graph0\" class=\"graph\">\n<title>deps</title>\n<!-- a -->\n<g id=\"node1\" class=\"node\"><title>a</title></g>\n"
        "<!-- a&#45;&gt;b -->\n<g id=\"edge1\" class=\"edge hidden&#45;edge\"><path/></g>\n"
        "<g id=\"edge2\" class=\"edge\"><path/></g>\n</g>\n</svg>";
    const std::string layered = deps::detail::layer_svg_edges(svg);
    const auto hidden = layered.find("hidden-edge-layer"), visible = layered.find("visible-edge-layer");
    const auto node = layered.find("id=\"node1\""), e1 = layered.find("id=\"edge1\""), e2 = layered.find("id=\"edge2\"");
    CHECK(hidden < e1);
    CHECK(e1 < visible);
    CHECK(visible < e2);
    CHECK(e2 < node);
    CHECK(layered.find("</svg>") != std::string::npos);
}

namespace {

// Tasks 0..6 (kernels), edges 0->1->2->3, 0->4->3; 5 and 6 stand alone;
// task 9 is only named by an edge (9->5): an alloc.
deps::deps_graph focus_graph(const deps::sidecar_tasks* sidecar = nullptr) {
    std::string text = R"({"tasks": [)";
    for (int i = 0; i < 7; ++i) text += (i ? ", " : "") + fmt::format(R"({{"task_id": "{}", "kernel_ids": [1, -1, -1]}})", i);
    text += R"(], "edges": [{"pred": 0, "succ": 1}, {"pred": 1, "succ": 2}, {"pred": 2, "succ": 3},
                            {"pred": 0, "succ": 4}, {"pred": 4, "succ": 3}, {"pred": 9, "succ": 5}]})";
    return deps::build_graph(deps::read_deps(write_temp(text)), {}, sidecar);
}

std::vector<std::uint64_t> kept_ids(const deps::deps_graph& g, const deps::graph_focus& f) {
    std::vector<std::uint64_t> out;
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
        if (f.keep[n]) out.push_back(g.nodes[n]);
    return out;
}

}  // namespace

TEST_CASE("a graph too big to draw: the critical path, then its neighbours, at most max_nodes") {
    const deps::deps_graph g = focus_graph();
    const deps::fan_lists fan(g, std::vector<bool>(g.edges.size(), true));
    REQUIRE(g.nodes.size() == 8);
    CHECK_FALSE(deps::focus_on_critical_path(g, fan, 0).applied);  // 0: every task
    CHECK_FALSE(deps::focus_on_critical_path(g, fan, 8).applied);  // small enough
    const deps::graph_focus f = deps::focus_on_critical_path(g, fan, 7);
    REQUIRE(f.applied);
    CHECK_FALSE(f.cycle);
    CHECK_FALSE(f.weighted);
    CHECK(f.path_nodes == 4);  // 0 1 2 3 by count, not 0 4 3
    CHECK(f.path_drawn == 4);
    CHECK(f.path_weight == 4.0);
    CHECK(g.nodes[f.path_start] == 0);
    CHECK(kept_ids(g, f) == std::vector<std::uint64_t>{0, 1, 2, 3, 4});  // + 4, the path's neighbour
    CHECK(f.kept == 5);
    CHECK(deps::focus_summary(f, "us") == "5 tasks: the critical path (4 tasks, longest by task count) and its neighbours");
    const deps::graph_focus cut = deps::focus_on_critical_path(g, fan, 2);  // the path itself is longer
    CHECK(kept_ids(g, cut) == std::vector<std::uint64_t>{0, 1});
    CHECK(deps::focus_summary(cut, "us") == "2 tasks: the first 2 of the critical path's 4 (longest by task count)");
}

TEST_CASE("with run times from the records the critical path is the longest in time") {
    deps::sidecar_tasks ran;
    for (std::uint64_t id = 0; id < 7; ++id) ran.emplace_back(id, deps::sidecar_task{"aic", false, 0.0, id == 4 ? 100.0 : 1.0});
    const deps::deps_graph g = focus_graph(&ran);
    REQUIRE(g.meta[4].ran);
    CHECK(g.meta[4].ran->duration_us == 100.0);
    CHECK_FALSE(g.meta[7].ran);  // the alloc: no kernel ran
    const deps::fan_lists fan(g, std::vector<bool>(g.edges.size(), true));
    const deps::graph_focus f = deps::focus_on_critical_path(g, fan, 4);
    REQUIRE(f.weighted);
    CHECK(f.path_nodes == 3);  // 0 4 3: 102 us against 0 1 2 3: 4 us
    CHECK(f.path_weight == 102.0);
    CHECK(kept_ids(g, f) == std::vector<std::uint64_t>{0, 1, 3, 4});  // then 0's successor 1 fills the last place
    CHECK(deps::focus_summary(f, "us") == "4 tasks: the critical path (3 tasks, 102.0 us) and its neighbours");
}

TEST_CASE("a graph with a cycle is cut to its first tasks by id") {
    const std::string path = write_temp(R"({"tasks": [], "edges": [{"pred": 0, "succ": 1}, {"pred": 1, "succ": 0}, {"pred": 1, "succ": 2}]})");
    const deps::deps_graph g = deps::build_graph(deps::read_deps(path), {}, nullptr);
    const deps::fan_lists fan(g, std::vector<bool>(g.edges.size(), true));
    const deps::graph_focus f = deps::focus_on_critical_path(g, fan, 2);
    REQUIRE(f.applied);
    CHECK(f.cycle);
    CHECK(kept_ids(g, f) == std::vector<std::uint64_t>{0, 1});
}

TEST_CASE("the DOT of a focused graph: only drawn tasks, edges between them; markers and overlap removal") {
    const deps::deps_graph g = focus_graph();
    const std::vector<bool> all(g.edges.size(), true);
    const deps::fan_lists fan(g, all);
    const deps::edge_selection sel = deps::select_edges(g, deps::edge_mode::full);
    const deps::graph_focus f = deps::focus_on_critical_path(g, fan, 7);
    deps::dot_options opt;
    const std::string whole = deps::emit_dot(g, sel, fan, opt);
    opt.nodes = &f.keep;
    const std::string part = deps::emit_dot(g, sel, fan, opt);
    auto count = [](const std::string& s, std::string_view what) {
        std::size_t n = 0;
        for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count(whole, " -> ") == 6);
    CHECK(count(part, " -> ") == 5);  // not 9 -> 5
    CHECK(part.find("T0_5 ") == std::string::npos);
    CHECK(whole.find("T0_5 ") != std::string::npos);
    // The alloc (9) is marked; its successor 5 is not starred: its only
    // predecessor is an alloc (a star needs one that is not).
    CHECK(whole.find("\u26A1 9") != std::string::npos);
    CHECK(whole.find("\u2605") == std::string::npos);
    CHECK(whole.find("\U0001F525") == std::string::npos);
    CHECK(whole.find("overlap=prism") == std::string::npos);  // dot does not overlap nodes
    opt.engine = "sfdp";
    CHECK(deps::emit_dot(g, sel, fan, opt).find("overlap=prism") != std::string::npos);
}

TEST_CASE("the records beside deps.json give each task when it ran") {
    // 50 MHz: 0.02 us a cycle. Task 10 on core 0, cycles 100..600; task 11
    // (two blocks) on cores 0 and 1, 650..1000 overall; the AICPU rows join
    // (core, reg) to them.
    const std::string path = write_temp(R"({"chip_swimlane_level": 2,
        "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},
        "aicore_tasks": [[0, 10, 1, 100, 600, 0], [0, 11, 3, 700, 900, 0], [1, 11, 4, 650, 1000, 0]],
        "aicpu_tasks": [[0, 1, 0, 0], [0, 3, 0, 0], [1, 4, 0, 0]]})");
    const deps::sidecar_tasks tasks = deps::read_perf_sidecar(path, false, /*run_times=*/true);
    REQUIRE(tasks.size() == 2);
    CHECK(tasks[0].first == 10);
    CHECK(tasks[0].second.start_us == doctest::Approx(0.0));
    CHECK(tasks[0].second.duration_us == doctest::Approx(10.0));
    CHECK(tasks[1].first == 11);
    CHECK(tasks[1].second.mixed);
    CHECK(tasks[1].second.start_us == doctest::Approx(11.0));
    CHECK(tasks[1].second.duration_us == doctest::Approx(7.0));
    // Without run times (the text view) the same tasks, no times kept.
    const deps::sidecar_tasks plain = deps::read_perf_sidecar(path);
    REQUIRE(plain.size() == 2);
    CHECK(plain[1].second.mixed);
    CHECK(plain[1].second.duration_us == 0.0);
}

TEST_CASE("kernel families drop a block index and an aic/aiv suffix") {
    CHECK(deps::detail::kernel_family("gate_0_aic") == "gate");
    CHECK(deps::detail::kernel_family("exp_up_mm_2") == "exp_up_mm");
    CHECK(deps::detail::kernel_family("x_aic_3") == "x_aic");
    CHECK(deps::detail::kernel_family("plain") == "plain");
}

TEST_CASE("dump elements decode like the reference viewer") {
    const unsigned char half_one[] = {0x00, 0x3C};    // 1.0 in IEEE half
    const unsigned char bf16_pi[] = {0x49, 0x40};     // 3.140625 in bfloat16
    const unsigned char i8[] = {0xFF};
    CHECK(dump::format_element(half_one, "FLOAT16") == "1");
    CHECK(dump::format_element(bf16_pi, "BFLOAT16") == "3.14");
    CHECK(dump::format_element(i8, "INT8") == "-1");
    CHECK(dump::format_element(i8, "UINT8") == "255");
    CHECK(dump::format_element(i8, "BOOL") == "True");
    CHECK(dump::format_element(i8, "FP8E4M3FN") == "0xff");
}

// critical-path keeps of deps.json's edges only the happens-before ones, as
// read: between two tasks that ran, pred ended (within tol) no later than
// succ started and started strictly earlier; each with its file position,
// duplicates collapsed to the first in happens_before.
TEST_CASE("critical-path: deps.json edges kept as happens-before while read") {
    namespace d = dfx::convert::deps::detail;
    d::cp_records rec;
    // Tasks 10, 20, 30, 40, 50: [0, 10], [12, 20], [20, 30], [5, 40], [18, 50].
    const std::uint64_t ids[] = {10, 20, 30, 40, 50};
    const std::int64_t starts[] = {0, 12, 20, 5, 18}, ends[] = {10, 20, 30, 40, 50};
    for (std::uint32_t i = 0; i < 5; ++i) {
        rec.index.emplace(ids[i], i);
        rec.id.push_back(ids[i]);
        rec.start.push_back(starts[i]);
        rec.end.push_back(ends[i]);
    }
    d::cp_deps_sink sink(rec, 2);
    dfx::convert::deps::edge_detail detail;
    dfx::convert::deps::edge_geometry geometry;
    auto edge = [&](std::uint64_t p, std::uint64_t s) {
        dfx::convert::deps::edge_key k;
        k.pred = p;
        k.succ = s;
        sink.edge(k, detail, geometry);
    };
    edge(10, 20);  // 0: kept (10 <= 12 + 2, 0 < 12)
    edge(20, 30);  // 1: kept (end 20 == start 20)
    edge(40, 30);  // 2: not: 40 ended after 30 started
    edge(30, 20);  // 3: not: started later
    edge(99, 20);  // 4: not: 99 did not run
    edge(10, 10);  // 5: not: a self edge
    edge(10, 20);  // 6: kept here, a duplicate of 0
    edge(20, 20);  // 7: self
    edge(10, 30);  // 8: kept
    edge(20, 50);  // 9: kept, at the tolerance exactly (20 <= 18 + 2)
    REQUIRE(sink.hb.size() == 5);
    CHECK(sink.hb[0].succ == 1);
    CHECK(sink.hb[0].pred == 0);
    CHECK(sink.hb[0].seq == 0);
    CHECK(sink.hb[1].seq == 1);
    CHECK(sink.hb[2].seq == 6);
    CHECK(sink.hb[3].seq == 8);
    CHECK(sink.hb[4].seq == 9);
    const d::cp_lists preds = d::happens_before(rec, sink.hb);
    CHECK(std::vector<std::uint32_t>(preds.first(1), preds.last(1)) == std::vector<std::uint32_t>{0});
    CHECK(std::vector<std::uint32_t>(preds.first(2), preds.last(2)) == std::vector<std::uint32_t>{1, 0});
    CHECK(preds.first(0) == preds.last(0));
    CHECK(preds.first(3) == preds.last(3));
    CHECK(std::vector<std::uint32_t>(preds.first(4), preds.last(4)) == std::vector<std::uint32_t>{1});
}
