// The overlap test case by case (spec dep-gen.md §1.8 "Overlap test", §7.1),
// the replay tensormap's lookup order and removal, and the key index both use.
#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "dep_gen_test_support.hpp"
#include "dfx/output/replay_tensormap.hpp"
#include "dfx/output/tensor_overlap.hpp"
#include "dfx/output/u64_index.hpp"

using namespace dg;
using dfx::tensor_overlap;

namespace {

// An 8x8 FLOAT32 buffer (256 bytes): reference shape [8, 8].
dfx::tensor_view tile(std::uint32_t rows, std::uint32_t cols, std::uint64_t row0, std::uint64_t col0) {
    auto v = view(0x8000, 256, dtype::float32, {rows, cols}, {8, 1}, row0 * 8 + col0);
    if (cols != 8) v = strided(v, (rows - 1) * 8 + cols);
    return v;
}

tensor_overlap classify(const dfx::tensor_view& consumer, const dfx::tensor_view& producer) {
    return dfx::classify_overlap(consumer, dfx::produced_slice::of(producer, 1));
}

}  // namespace

TEST_CASE("covered means the consumer contains the producer, not the other way round") {
    CHECK(classify(tile(8, 8, 0, 0), tile(4, 4, 2, 2)) == tensor_overlap::covered);
    CHECK(classify(tile(4, 4, 2, 2), tile(8, 8, 0, 0)) == tensor_overlap::other);
    CHECK(classify(tile(4, 4, 2, 2), tile(4, 4, 2, 2)) == tensor_overlap::covered);
    CHECK(classify(tile(4, 4, 0, 0), tile(4, 4, 2, 2)) == tensor_overlap::other);  // partial
}

TEST_CASE("disjoint slices: by flat range, or per dimension when the flat ranges meet") {
    CHECK(classify(tile(2, 8, 6, 0), tile(4, 8, 0, 0)) == tensor_overlap::no_overlap);  // [48,64) vs [0,32)
    CHECK(classify(tile(4, 4, 0, 4), tile(4, 4, 0, 0)) == tensor_overlap::no_overlap);  // columns apart
    // A zero-length consumer meets nothing.
    CHECK(classify(view(0x8000, 256, dtype::float32, {0}, {1}), view(0x8000, 256, dtype::float32, {64}, {1})) ==
          tensor_overlap::no_overlap);
}

TEST_CASE("a consumer of a newer version is \"other\" whatever the slices") {
    CHECK(classify(at_version(tile(1, 1, 7, 7), 1), tile(1, 1, 0, 0)) == tensor_overlap::other);
    // An older consumer version is compared normally.
    CHECK(classify(tile(1, 1, 7, 7), at_version(tile(1, 1, 0, 0), 1)) == tensor_overlap::no_overlap);
}

TEST_CASE("layouts the per-dimension test cannot compare are \"other\"") {
    const auto whole = view(0x8000, 256, dtype::float32, {8, 8}, {8, 1});
    auto as_int = whole;
    as_int.dtype = static_cast<std::uint8_t>(dtype::int32);
    CHECK(classify(as_int, whole) == tensor_overlap::other);  // dtype differs
    CHECK(classify(view(0x8000, 256, dtype::float32, {64}, {1}), whole) == tensor_overlap::other);  // ndims differs
    // Strides differ (a transposed view).
    CHECK(classify(strided(view(0x8000, 256, dtype::float32, {8, 8}, {1, 8}), 64), whole) == tensor_overlap::other);
    // Innermost stride not 1, on both sides (a column slice with step 2).
    const auto step2 = strided(view(0x8000, 256, dtype::float32, {8, 4}, {8, 2}), 63);
    CHECK(classify(step2, step2) == tensor_overlap::other);
    // Outer stride not a multiple of the inner one.
    const auto odd = strided(view(0x8000, 256, dtype::float32, {4, 2}, {3, 1}), 11);
    CHECK(classify(odd, odd) == tensor_overlap::other);
    // The buffer is not a whole number of rows (buffer numel 60, row stride 8).
    const auto ragged = view(0x8000, 240, dtype::float32, {2, 8}, {8, 1});
    CHECK(classify(ragged, ragged) == tensor_overlap::other);
    // A slice that does not fit the reference shape (a row running past 8 columns).
    const auto overhang = strided(view(0x8000, 256, dtype::float32, {2, 6}, {8, 1}, 4), 14);
    CHECK(classify(overhang, overhang) == tensor_overlap::other);
    // Unknown dtype: no element size to derive the reference shape from.
    auto unknown = whole;
    unknown.dtype = 99;
    CHECK(classify(unknown, unknown) == tensor_overlap::other);
    // ndims 0: nothing to compare per dimension.
    const auto scalarish = view(0x8000, 256, dtype::float32, {}, {});
    CHECK(classify(scalarish, scalarish) == tensor_overlap::other);
}

TEST_CASE("a contiguous producer at offset 0 is kept with row-major strides derived from its shape") {
    // [1, 16] with an outer stride of 64 is contiguous; the entry keeps [16, 1].
    const auto row = view(0x8000, 256, dtype::float32, {1, 16}, {64, 1});
    const auto kept = dfx::produced_slice::of(row, 3);
    CHECK(kept.producer == 3);
    CHECK(kept.strides[0] == 16);
    CHECK(kept.strides[1] == 1);
    CHECK(kept.extent == 16);
    // At a non-zero offset, or strided, the captured strides are kept.
    CHECK(dfx::produced_slice::of(view(0x8000, 256, dtype::float32, {1, 16}, {64, 1}, 64), 3).strides[0] == 64);
    CHECK(dfx::produced_slice::of(strided(row, 16), 3).strides[0] == 64);
}

TEST_CASE("the replay tensormap: newest first, NO_OVERLAP skipped, removal of the visited entry only") {
    dfx::replay_tensormap map;
    map.insert(tile(8, 8, 0, 0), 1);
    map.insert(tile(4, 4, 0, 4), 2);  // disjoint from the consumer below
    map.insert(tile(4, 4, 0, 0), 3);
    map.insert(view(0x9000, 64, dtype::float32, {16}, {1}), 4);  // another buffer

    const auto visit_all = [&](const dfx::tensor_view& consumer, std::uint64_t remove_producer) {
        std::vector<std::uint64_t> seen;
        map.lookup(consumer, [&](const dfx::produced_slice& s, tensor_overlap) {
            seen.push_back(s.producer);
            return s.producer == remove_producer ? dfx::replay_tensormap::after_hit::remove
                                                 : dfx::replay_tensormap::after_hit::keep;
        });
        return seen;
    };
    const auto top_left = tile(4, 4, 0, 0);
    CHECK(visit_all(top_left, 3) == std::vector<std::uint64_t>{3, 1});
    CHECK(visit_all(top_left, 0) == std::vector<std::uint64_t>{1});
    CHECK(visit_all(tile(8, 8, 0, 0), 0) == std::vector<std::uint64_t>{2, 1});
    CHECK(visit_all(view(0xA000, 64, dtype::float32, {16}, {1}), 0).empty());
}

TEST_CASE("the replay's key index: first-insertion numbering through growth, probing and clear") {
    dfx::detail::u64_index index;
    CHECK(index.find(0) == dfx::detail::u64_index::npos);
    // Keys that differ only above the bits a small table keeps, so they
    // probe past each other; enough of them to grow the table several times.
    std::vector<std::uint64_t> keys;
    for (std::uint64_t i = 0; i < 1000; ++i) keys.push_back(i << 40 | 0x8000);
    keys.push_back(0);
    keys.push_back(~std::uint64_t{0});
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto [at, fresh] = index.insert(keys[i]);
        CHECK(fresh);
        CHECK(at == i);
    }
    CHECK(index.size() == keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        CHECK(index.find(keys[i]) == i);
        const auto [at, fresh] = index.insert(keys[i]);  // seen: same number, nothing added
        CHECK_FALSE(fresh);
        CHECK(at == i);
    }
    CHECK(index.size() == keys.size());
    CHECK(index.find(0x8001) == dfx::detail::u64_index::npos);
    index.clear();
    CHECK(index.size() == 0);
    CHECK(index.find(keys[5]) == dfx::detail::u64_index::npos);
    CHECK(index.insert(keys[5]) == std::pair<std::uint32_t, bool>{0, true});
    // A clear after few keys in a large table drops the table; the set still works.
    CHECK(index.insert(keys[7]) == std::pair<std::uint32_t, bool>{1, true});
    index.clear();
    CHECK(index.find(keys[5]) == dfx::detail::u64_index::npos);
    for (std::size_t i = 0; i < 40; ++i) CHECK(index.insert(keys[i]) == std::pair<std::uint32_t, bool>{i, true});
    for (std::size_t i = 0; i < 40; ++i) CHECK(index.find(keys[i]) == i);
    CHECK(index.find(keys[40]) == dfx::detail::u64_index::npos);
}
