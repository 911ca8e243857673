// ordered_chunks: two threads format chunks of a section; the file must read
// exactly as if one thread had written it, numbers included. Also run under
// TSan (scripts/test.sh).
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "dfx/convert/common/ordered_chunks.hpp"
#include "../support/scratch_dir.hpp"

using dfx::convert::item_chunk;
using dfx::convert::json_buffer;
using dfx::convert::json_file_writer;
using test_support::scratch_dir;

namespace {

struct counted {
    std::size_t items = 0;
    counted& operator+=(const counted& o) {
        items += o.items;
        return *this;
    }
};

// Item i draws i % 4 numbers and writes one line per number, plus a long run
// of filler every 97th item (chunks larger than a block must grow).
std::size_t numbers_of(std::size_t i) { return i % 4; }
std::string filler(std::size_t i) { return i % 97 == 0 ? std::string(700'000 + i, 'f') : std::string(); }

counted format_item(std::size_t i, json_buffer& out, std::int64_t& number) {
    out.append_int(i);
    out.push_back(':');
    for (std::size_t k = 0; k < numbers_of(i); ++k) {
        out.push_back(' ');
        out.append_int(number++);
    }
    out.append(filler(i));
    out.push_back('\n');
    return {1};
}

std::string sequential(std::size_t n, std::int64_t first) {
    std::string s = "head\n";
    for (std::size_t i = 0; i < n; ++i) {
        s += fmt::format("{}:", i);
        for (std::size_t k = 0; k < numbers_of(i); ++k) s += fmt::format(" {}", first++);
        s += filler(i) + '\n';
    }
    return s + "tail\n";
}

}  // namespace

TEST_CASE("chunks formatted on two threads read as one thread's output") {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}, std::size_t{5003}}) {
        CAPTURE(n);
        scratch_dir dir;
        const auto path = dir.file("chunks.txt");
        std::int64_t number = 42;
        {
            json_file_writer out(path);
            out.append("head\n");
            const counted c = dfx::convert::format_in_order<counted>(
                out, n, 64, number, numbers_of, [](const item_chunk& ch, json_buffer& b, std::int64_t& next) {
                    counted sum;
                    for (std::size_t i = ch.begin; i < ch.end; ++i) sum += format_item(i, b, next);
                    return sum;
                });
            CHECK(c.items == n);
            out.append("tail\n");
            out.commit();
        }
        std::int64_t drawn = 0;
        for (std::size_t i = 0; i < n; ++i) drawn += static_cast<std::int64_t>(numbers_of(i));
        CHECK(number == 42 + drawn);
        CHECK(test_support::slurp(path) == sequential(n, 42));
    }
}

TEST_CASE("a chunk that draws other than its items said is an error, not a shifted file") {
    scratch_dir dir;
    const auto path = dir.file("drift.txt");
    std::int64_t number = 0;
    json_file_writer out(path);
    CHECK_THROWS_WITH_AS(dfx::convert::format_in_order<counted>(
                             out, 500, 16, number, [](std::size_t) { return 1; },
                             [](const item_chunk& ch, json_buffer& b, std::int64_t& next) {
                                 for (std::size_t i = ch.begin; i < ch.end; ++i) {
                                     b.append_int(next);
                                     if (i != 300) ++next;  // item 300 forgets its number
                                 }
                                 return counted{};
                             }),
                         "ordered_chunks: items 288..304 said they draw 16 numbers, their events drew 15",
                         std::logic_error);
}

TEST_CASE("an exception in one chunk stops the section and reaches the caller") {
    scratch_dir dir;
    const auto path = dir.file("throws.txt");
    std::int64_t number = 0;
    {
        json_file_writer out(path);
        CHECK_THROWS_WITH_AS(dfx::convert::format_in_order<counted>(
                                 out, 10'000, 8, number, [](std::size_t) { return 0; },
                                 [](const item_chunk& ch, json_buffer& b, std::int64_t&) {
                                     if (ch.begin == 4000) throw std::runtime_error("chunk 500 failed");
                                     b.append("x");
                                     return counted{};
                                 }),
                             "chunk 500 failed", std::runtime_error);
        // Not committed: the writer is dropped with its partial file.
    }
    CHECK(std::filesystem::is_empty(std::filesystem::path(path).parent_path()));
}
