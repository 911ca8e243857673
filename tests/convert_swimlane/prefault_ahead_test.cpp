// prefault_ahead faults in a buffer's pages a lead ahead of what its writer
// reported, not before the writer starts and not far past it, leaves the
// bytes as they are, and stops at once. Residency is read with mincore() on
// a mapping kept in 4 KiB pages. Where the kernel lacks MADV_POPULATE_WRITE
// the cases say so and check only that nothing is faulted in or broken.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "dfx/convert/common/prefault_ahead.hpp"

using dfx::convert::prefault_ahead;

namespace {

constexpr std::size_t page = 4096;

// An anonymous mapping in 4 KiB pages, none resident yet.
struct mapping {
    explicit mapping(std::size_t bytes) : size(bytes) {
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        base = static_cast<char*>(p);
        ::madvise(base, bytes, MADV_NOHUGEPAGE);
    }
    ~mapping() { ::munmap(base, size); }
    mapping(const mapping&) = delete;
    mapping& operator=(const mapping&) = delete;

    // Resident bytes of the pages that hold [from, to).
    [[nodiscard]] std::size_t resident(std::size_t from, std::size_t to) const {
        from = from / page * page;
        std::vector<unsigned char> pages((to - from + page - 1) / page);
        REQUIRE(::mincore(base + from, to - from, pages.data()) == 0);
        std::size_t n = 0;
        for (const unsigned char p : pages) n += (p & 1) ? page : 0;
        return n;
    }
    char* base = nullptr;
    std::size_t size = 0;
};

// Whether this kernel populates ranges (Linux 5.14 and later).
bool kernel_populates() {
#if defined(MADV_POPULATE_WRITE)
    const mapping probe(page);
    return ::madvise(probe.base, page, MADV_POPULATE_WRITE) == 0;
#else
    return false;
#endif
}

// Waits (up to 20 s: a loaded machine may not run the thread for a
// while) until `done()` holds; false if it never did.
template <class Done>
bool eventually(Done done) {
    for (int i = 0; i < 2000; ++i) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
}

}  // namespace

TEST_CASE("prefault_ahead: pages come in a lead ahead of the writer, from its first write on") {
    const bool populates = prefault_ahead::supported && kernel_populates();
    if (!populates) MESSAGE("this kernel cannot populate ranges: checking that nothing is faulted in");
    constexpr std::size_t lead = prefault_ahead::lead;
    const mapping m(16 * lead);
    // A buffer that starts and ends inside pages, as a heap block does.
    const std::size_t first = 100, last = m.size - 300;
    prefault_ahead ahead;
    const auto id = ahead.watch(m.base + first, last - first);
    REQUIRE(id != prefault_ahead::no_range);
    ahead.start();

    SUBCASE("nothing before the writer starts") {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ahead.stop();
        CHECK(m.resident(0, m.size) == 0);
        CHECK(ahead.populated() == 0);
    }
    SUBCASE("a lead past each report, never much more") {
        // Reports at odd byte counts, as a table of 48-byte records makes them.
        std::size_t used = 0;
        for (std::size_t step = 0; step < 6; ++step) {
            used += lead + 4321;
            m.base[first + used - 1] = 1;  // the writer's own touch
            ahead.wrote(id, used);
            const std::size_t want = (first + used + lead) / page * page;  // up to here, at least
            if (populates) {
                CHECK(eventually([&] { return m.resident(0, want) == want / page * page; }));
            }
        }
        ahead.stop();
        const std::size_t used_end = first + used;
        if (populates) {
            CHECK(m.resident(0, used_end) == (used_end + page - 1) / page * page);
            // Past the fill: the lead, rounded to a step, nothing more.
            CHECK(m.resident(used_end, m.size) <= lead + prefault_ahead::step + page);
            CHECK(ahead.populated() >= used);
        } else {
            CHECK(ahead.populated() == 0);
        }
    }
    SUBCASE("the whole buffer once the writer is within a lead of its end") {
        ahead.wrote(id, last - first - lead / 2);
        if (populates) CHECK(eventually([&] { return m.resident(0, m.size) == m.size; }));
        ahead.stop();
        if (populates) CHECK(ahead.populated() >= last - first);
    }
}

TEST_CASE("prefault_ahead: the bytes stay as the writer left them") {
    const mapping m(4 * prefault_ahead::lead);
    // The writer's half, a pattern; the other half is faulted in behind it.
    const std::size_t half = m.size / 2;
    for (std::size_t i = 0; i < half; ++i) m.base[i] = static_cast<char>(i * 7 + 1);
    prefault_ahead ahead;
    const auto id = ahead.watch(m.base, m.size);
    ahead.start();
    ahead.wrote(id, half);
    if (prefault_ahead::supported && kernel_populates()) {
        CHECK(eventually([&] { return m.resident(0, m.size) == std::min(m.size, half + prefault_ahead::lead); }));
    }
    ahead.stop();
    bool pattern = true, zeros = true;
    for (std::size_t i = 0; i < half; ++i) pattern = pattern && m.base[i] == static_cast<char>(i * 7 + 1);
    for (std::size_t i = half; i < m.size; ++i) zeros = zeros && m.base[i] == 0;
    CHECK(pattern);
    CHECK(zeros);
}

TEST_CASE("prefault_ahead: a range the kernel refuses is left alone, and stop() still returns") {
    // A read-only mapping cannot be populated for writing.
    void* p = ::mmap(nullptr, 2 * prefault_ahead::lead, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    prefault_ahead ahead;
    const auto id = ahead.watch(p, 2 * prefault_ahead::lead);
    ahead.start();
    ahead.wrote(id, page);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ahead.stop();
    CHECK(ahead.populated() == 0);
    ::munmap(p, 2 * prefault_ahead::lead);
}

TEST_CASE("prefault_ahead: watch refuses what it cannot take, stop is idempotent") {
    const mapping m(page * 4);
    prefault_ahead ahead;
    CHECK(ahead.watch(nullptr, page) == prefault_ahead::no_range);
    CHECK(ahead.watch(m.base, 0) == prefault_ahead::no_range);
    for (std::size_t i = 0; i < prefault_ahead::max_ranges; ++i) CHECK(ahead.watch(m.base, page) == i);
    CHECK(ahead.watch(m.base, page) == prefault_ahead::no_range);  // all taken
    ahead.start();
    ahead.wrote(prefault_ahead::no_range, page);  // ignored
    ahead.stop();
    ahead.stop();
    CHECK(ahead.watch(m.base, page) == prefault_ahead::no_range);  // after stop
    ahead.start();                                                 // does nothing
    ahead.stop();
}
