// row_array: the converters' tables of rows. Every row pushed is there
// afterwards, in order, however the table grew; a moved-from table is empty;
// a released prefix gives its whole pages back and leaves every row from the
// mark on as it was.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "dfx/convert/common/row_array.hpp"

namespace {

struct row48 {  // an aicore_row's size
    std::uint64_t id = 0, a = 0, b = 0, c = 0, d = 0;
    std::uint32_t core = 0, seq = 0;
};

row48 row_at(std::size_t i) {
    return {i + 1, i * 3, i * 5, i * 7, i * 11, static_cast<std::uint32_t>(i % 24), static_cast<std::uint32_t>(i)};
}
bool same(const row48& x, const row48& y) {
    return x.id == y.id && x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d && x.core == y.core && x.seq == y.seq;
}

}  // namespace

TEST_CASE("rows pushed are there in order after the table grew many times") {
    dfx::convert::row_array<row48> rows;
    CHECK(rows.empty());
    constexpr std::size_t n = 1'000'000;  // 48 MB: past malloc's mmap threshold, so grown by mremap
    for (std::size_t i = 0; i < n; ++i) rows.push_back(row_at(i));
    REQUIRE(rows.size() == n);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += !same(rows[i], row_at(i));
    CHECK(wrong == 0);
    CHECK(rows.end() - rows.begin() == static_cast<std::ptrdiff_t>(n));
    CHECK(same(rows.back(), row_at(n - 1)));
    // A row of its own pushed when it is full: copied before the table moves.
    dfx::convert::row_array<row48> small;
    small.push_back(row_at(7));
    while (small.size() < 1024) small.push_back(small[0]);  // the first growth is at 1024 rows
    small.push_back(small[0]);
    wrong = 0;
    for (const row48& r : small) wrong += !same(r, row_at(7));
    CHECK(wrong == 0);
}

TEST_CASE("a table sorts in place and moves without copying") {
    dfx::convert::row_array<row48> rows;
    for (std::size_t i = 0; i < 1000; ++i) rows.push_back(row_at(999 - i));
    std::sort(rows.begin(), rows.end(), [](const row48& x, const row48& y) { return x.id < y.id; });
    CHECK(rows[0].id == 1);
    CHECK(rows[999].id == 1000);
    const row48* at = rows.data();
    dfx::convert::row_array<row48> moved = std::move(rows);
    CHECK(moved.data() == at);
    CHECK(moved.size() == 1000);
    CHECK(rows.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty, by contract
    moved = {};
    CHECK(moved.empty());
}

TEST_CASE("releasing a prefix keeps every row from the mark on") {
    dfx::convert::row_array<row48> rows;
    constexpr std::size_t n = 1'000'000;
    for (std::size_t i = 0; i < n; ++i) rows.push_back(row_at(i));
    // As a join would: the mark advancing row by row.
    constexpr std::size_t mark = 700'000;
    for (std::size_t i = 0; i <= mark; ++i) rows.release_prefix(i);
    std::size_t wrong = 0;
    for (std::size_t i = mark; i < n; ++i) wrong += !same(rows[i], row_at(i));
    CHECK(wrong == 0);
#if defined(__linux__)
    // Behind the mark, whole pages went back (they read as zeros now): all but
    // the first page and the last step's worth (8 MiB) before the mark.
    std::size_t zeroed = 0;
    for (std::size_t i = 0; i < mark; ++i) zeroed += rows[i].id == 0;
    CHECK(zeroed >= mark - (std::size_t{8 << 20} + 4096) / sizeof(row48) - 1);
#endif
    // Rows pushed after a release are kept as any others.
    for (std::size_t i = n; i < n + 300'000; ++i) rows.push_back(row_at(i));
    wrong = 0;
    for (std::size_t i = mark; i < n + 300'000; ++i) wrong += !same(rows[i], row_at(i));
    CHECK(wrong == 0);
}
