// spill_file / external_sort: what goes to disk comes back whole and in
// order, whatever the buffer sizes, codecs and run budgets; nothing is left
// behind; input that fits in the budget never touches the disk.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/common/external_sort.hpp"
#include "dfx/convert/common/spill_file.hpp"
#include "../support/scratch_dir.hpp"

using namespace dfx::convert;

namespace {

// Sets TMPDIR for the scope (the spill files' directory), then puts it back.
class temp_dir_set_to {
public:
    explicit temp_dir_set_to(const std::string& dir) {
        if (const char* t = std::getenv("TMPDIR")) old_ = t;
        ::setenv("TMPDIR", dir.c_str(), 1);
    }
    ~temp_dir_set_to() {
        if (old_) ::setenv("TMPDIR", old_->c_str(), 1);
        else ::unsetenv("TMPDIR");
    }

private:
    std::optional<std::string> old_;
};

std::size_t entries(const std::filesystem::path& dir) {
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

struct keyed {
    std::uint64_t key = 0, seq = 0;
    friend bool operator<(const keyed& a, const keyed& b) { return a.key != b.key ? a.key < b.key : a.seq < b.seq; }
    friend bool operator==(const keyed&, const keyed&) = default;
    static constexpr std::size_t radix_words = 2;
    std::uint64_t radix_word(std::size_t i) const { return i == 0 ? key : seq; }
};
// The same order, left to std::sort.
struct by_key_then_seq {
    bool operator()(const keyed& a, const keyed& b) const { return a < b; }
};
static_assert(sorted_by_radix<keyed, std::less<keyed>> && !sorted_by_radix<keyed, by_key_then_seq>);
struct keyed_codec {  // differences, as the converters' codecs
    static constexpr std::size_t max_bytes = 2 * varint_max_bytes;
    static void put(std::uint8_t*& w, const keyed& prev, const keyed& x) {
        put_varint(w, zigzag(x.key - prev.key));
        put_varint(w, zigzag(x.seq - prev.seq));
    }
    static keyed get(const std::uint8_t*& r, const keyed& prev) {
        return {prev.key + unzigzag(get_varint(r)), prev.seq + unzigzag(get_varint(r))};
    }
};

template <class T, class Less, class Codec>
std::vector<T> drain(sorted_records<T, Less, Codec>& s) {
    std::vector<T> out;
    while (const T* x = s.next()) out.push_back(*x);
    return out;
}

// Inputs of each shape the converters see: random, sorted, reversed, sorted
// by key with each key's few records shuffled (deps.json's edges by
// successor), and sorted runs interleaved (rows of several cores).
std::vector<std::vector<keyed>> shapes(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<keyed>> all(5);
    for (std::size_t i = 0; i < n; ++i) {
        all[0].push_back({rng() % (n / 3 + 1), i});
        all[1].push_back({i / 2, i});
        all[2].push_back({n - i, i});
        all[4].push_back({(i % 7) * 1000000 + i / 7, i});
    }
    all[3] = all[1];
    for (std::size_t i = 0; i + 3 < n; i += 3) std::shuffle(all[3].begin() + static_cast<std::ptrdiff_t>(i), all[3].begin() + static_cast<std::ptrdiff_t>(i + 3), rng);
    for (auto& v : all)  // far apart too: ids in the high word, wrapped differences
        for (std::size_t i = 0; i < v.size(); i += 101) v[i].key |= std::uint64_t{0xFF} << 56;
    return all;
}

}  // namespace

TEST_CASE("a spill file has no name: it reads back what was written and leaves nothing behind") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp(dir.path().string());
    {
        spill_file f;
        CHECK(f.directory() == dir.path().string());
        CHECK(entries(dir.path()) == 0);  // (O_TMPFILE, or mkstemp and unlink at once)
        const std::string a = "first stretch", b(100000, 'x');
        f.append(a.data(), a.size());
        f.append(b.data(), b.size());
        CHECK(f.size() == a.size() + b.size());
        std::string back(5, '\0');
        f.read(6, back.data(), back.size());
        CHECK(back == "stret");
        back.assign(b.size(), '\0');
        f.read(a.size(), back.data(), back.size());
        CHECK(back == b);
        CHECK_THROWS_AS(f.read(f.size() - 2, back.data(), 4), input_error);  // past the end
    }
    CHECK(entries(dir.path()) == 0);
}

TEST_CASE("a temporary directory that is not there is one error naming it, and TMPDIR=/ trailing slashes are trimmed") {
    test_support::scratch_dir dir;
    const std::string missing = (dir.path() / "no-such-dir").string();
    {
        const temp_dir_set_to tmp(missing);
        CHECK_THROWS_WITH_AS(spill_file(), doctest::Contains((missing + ": cannot create a temporary file").c_str()), input_error);
        CHECK_THROWS_WITH_AS(spill_file(), doctest::Contains("set TMPDIR"), input_error);
    }
    const temp_dir_set_to tmp(dir.path().string() + "//");
    CHECK(spill_file::temp_dir() == dir.path().string());
}

TEST_CASE("records written with a codec come back the same, across buffer boundaries, stretch by stretch") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp(dir.path().string());
    for (const std::size_t buffer : {std::size_t{1}, std::size_t{37}, std::size_t{1} << 18}) {
        CAPTURE(buffer);
        spill_file f;
        std::vector<std::vector<keyed>> stretches = shapes(3000, buffer);
        std::vector<spill_writer<keyed, keyed_codec>::stretch> where;
        spill_writer<keyed, keyed_codec> coded(f, buffer);
        for (const auto& s : stretches) {
            for (const keyed& k : s) coded.push(k);
            where.push_back(coded.finish());
        }
        spill_writer<keyed> raw(f, buffer);  // the bytes as they are, after them
        for (const keyed& k : stretches[0]) raw.push(k);
        const auto raw_where = raw.finish();
        CHECK(raw_where.bytes == stretches[0].size() * sizeof(keyed));
        CHECK(where[1].bytes < stretches[1].size() * 3);  // sorted and dense: about 2 bytes a record

        for (std::size_t i = 0; i < stretches.size(); ++i) {
            spill_reader<keyed, keyed_codec> r(f, where[i].offset, where[i].bytes, where[i].count, buffer);
            std::vector<keyed> back;
            while (const keyed* k = r.next()) back.push_back(*k);
            CHECK(back == stretches[i]);
            CHECK(r.next() == nullptr);
        }
        spill_reader<keyed> r(f, raw_where.offset, raw_where.bytes, raw_where.count, buffer);
        std::vector<keyed> back;
        while (const keyed* k = r.next()) back.push_back(*k);
        CHECK(back == stretches[0]);
    }
}

TEST_CASE("spilled_records reads back all it was given, as often as asked, from memory or from disk") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp(dir.path().string());
    std::vector<std::uint64_t> want;
    for (std::uint64_t i = 0; i < 200000; ++i) want.push_back((i * 7919) % 1000003 + (i % 13 == 0 ? std::uint64_t{1} << 63 : 0));
    for (const std::size_t memory : {std::size_t{1}, std::size_t{4096}, std::size_t{64} << 20}) {
        CAPTURE(memory);
        spilled_records<std::uint64_t, u64_delta_codec> ids(memory);
        for (const std::uint64_t id : want) ids.push(id);
        CHECK(ids.size() == want.size());
        CHECK(ids.on_disk() == (memory < (std::size_t{1} << 20)));
        for (int pass = 0; pass < 2; ++pass) {
            std::vector<std::uint64_t> back;
            for (auto r = ids.read(); const std::uint64_t* x = r.next();) back.push_back(*x);
            CHECK(back == want);
        }
    }
    // Within its memory, a missing temporary directory does not matter.
    const temp_dir_set_to missing((dir.path() / "missing").string());
    spilled_records<std::uint64_t, u64_delta_codec> few;
    for (std::uint64_t i = 0; i < 1000; ++i) few.push(i);
    auto r = few.read();
    CHECK(!few.on_disk());
    CHECK(*r.next() == 0);
}

TEST_CASE("an external sort gives std::sort's order for every shape of input and every budget") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp(dir.path().string());
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{20011}}) {
        const auto all = shapes(n, n);
        for (std::size_t shape = 0; shape < all.size(); ++shape) {
            std::vector<keyed> want = all[shape];
            std::sort(want.begin(), want.end());
            // one record a run, a few runs, all in memory
            for (const std::size_t budget_records : {std::size_t{1}, std::size_t{7}, n / 3 + 1, n + 1}) {
                CAPTURE(n);
                CAPTURE(shape);
                CAPTURE(budget_records);
                external_sorter<keyed, std::less<keyed>, keyed_codec> coded(budget_records * sizeof(keyed));
                external_sorter<keyed> raw(budget_records * sizeof(keyed));
                for (const keyed& k : all[shape]) {
                    coded.push(k);
                    raw.push(k);
                }
                CHECK(coded.size() == n);
                auto a = std::move(coded).finish();
                auto b = std::move(raw).finish();
                CHECK(a.size() == n);
                // (keyed sorts by radix: half the budget holds records, half the
                // scratch; a merge reads budget / 4 KiB runs at once, at least 2)
                const std::size_t held = std::max<std::size_t>(budget_records / 2, 1);
                const std::size_t runs = n <= held ? 0 : (n + held - 1) / held;
                const std::size_t fan = std::max<std::size_t>(held * 2 * sizeof(keyed) / 4096, 2);
                CHECK((coded.merge_passes() > 0) == (runs > fan));
                if (runs <= fan) CHECK(a.runs() == runs);
                else CHECK((a.runs() >= 2 && a.runs() <= fan));
                CHECK(drain(a) == want);
                CHECK(drain(b) == want);
                CHECK(a.next() == nullptr);
            }
        }
    }
    CHECK(entries(dir.path()) == 0);
}

TEST_CASE("more runs than the budget can read at once are merged in passes, in the same order") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp(dir.path().string());
    // 64 KiB: 32 KiB of ids a run (the radix sort takes the other half),
    // 16 runs of 4 KiB buffers read at once.
    const std::size_t budget = std::size_t{64} << 10;
    for (const std::uint64_t n : {std::uint64_t{4096 * 16}, std::uint64_t{4096 * 17}, std::uint64_t{600000}}) {
        CAPTURE(n);
        external_sorter<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> s(budget);
        std::vector<std::uint64_t> want;
        for (std::uint64_t i = 0; i < n; ++i) {
            want.push_back((i * 2654435761u) % 1000003);
            s.push(want.back());
        }
        std::sort(want.begin(), want.end());
        auto sorted = std::move(s).finish();
        CHECK(s.merge_passes() == (n <= 4096 * 16 ? 0 : n <= 4096 * 16 * 16 ? 1 : 2));
        CHECK(sorted.runs() <= 16);
        CHECK(drain(sorted) == want);
    }
    CHECK(entries(dir.path()) == 0);
}

TEST_CASE("input within the budget never touches the disk; beyond it, a missing TMPDIR is an error") {
    test_support::scratch_dir dir;
    const temp_dir_set_to tmp((dir.path() / "missing").string());
    // 2000 ids' worth: 1000 held, room for the radix sort's copy of them.
    external_sorter<std::uint64_t> fits(2000 * sizeof(std::uint64_t));
    for (std::uint64_t i = 1000; i-- > 0;) fits.push(i);
    auto sorted = std::move(fits).finish();
    CHECK(sorted.runs() == 0);
    CHECK(*sorted.next() == 0);

    external_sorter<std::uint64_t> spills(2000 * sizeof(std::uint64_t));
    for (std::uint64_t i = 1000; i-- > 0;) spills.push(i);
    CHECK_THROWS_WITH_AS(spills.push(5), doctest::Contains("missing: cannot create a temporary file"), spill_error);
}

TEST_CASE("sort_run: nearly sorted runs by insertion, any other by radix or std::sort, the same order") {
    std::mt19937_64 rng(42);
    std::vector<keyed> scratch;
    std::vector<std::uint64_t> id_scratch;
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{5000}}) {
        for (const auto& shape : shapes(n, n + 1)) {
            std::vector<keyed> want = shape;
            std::sort(want.begin(), want.end());
            std::vector<keyed> by_radix = shape, by_std = shape;
            sort_run(by_radix, std::less<keyed>{}, scratch);
            sort_run(by_std, by_key_then_seq{}, scratch);
            CHECK(by_radix == want);
            CHECK(by_std == want);
            std::vector<std::uint64_t> ids, want_ids;
            for (const keyed& k : shape) ids.push_back(k.key);
            want_ids = ids;
            sort_run(ids, std::less<std::uint64_t>{}, id_scratch);
            std::sort(want_ids.begin(), want_ids.end());
            CHECK(ids == want_ids);
        }
        // radix alone: every byte varying, some constant, odd and even numbers of passes, both words
        for (const std::uint64_t mask : {~std::uint64_t{0}, std::uint64_t{0xFF00FF}, std::uint64_t{0xFFFF}, std::uint64_t{0xFF} << 40}) {
            std::vector<std::uint64_t> v(n);
            for (auto& x : v) x = (rng() & mask) | (std::uint64_t{3} << 32);
            std::vector<std::uint64_t> want = v;
            radix_sort(v.data(), v.data() + v.size(), id_scratch);
            std::sort(want.begin(), want.end());
            CHECK(v == want);
            std::vector<keyed> k(n);
            for (auto& x : k) x = {rng() & mask & 0xFF0F, rng() & mask};
            std::vector<keyed> want_k = k;
            radix_sort(k.data(), k.data() + k.size(), scratch);
            std::sort(want_k.begin(), want_k.end());
            CHECK(k == want_k);
        }
    }
}
