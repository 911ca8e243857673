// dfx::append_buffer: what a drain thread keeps. Every byte appended is
// there afterwards, in order, however the buffer grew; records come back as
// the records they were; its pages are faulted in a step ahead, in one call.
// And dfx::host_memory's transport blocks come faulted in.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dfx/output/append_buffer.hpp"
#include "dfx/transport/memory_ops.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

struct sample_record {
    std::uint64_t id;
    std::uint32_t core;
    std::uint32_t payload[5];
};

// A byte that depends on its position, so a block moved, lost or zeroed shows.
std::byte pattern(std::size_t at) { return std::byte(static_cast<unsigned char>((at * 131u) ^ (at >> 9))); }

}  // namespace

TEST_CASE("an empty buffer holds nothing and views as no records") {
    const dfx::append_buffer b;
    CHECK(b.empty());
    CHECK(b.size() == 0);
    CHECK(b.data() == nullptr);
    CHECK(b.bytes().empty());
    CHECK(b.as<sample_record>().empty());
}

TEST_CASE("appends of every size keep every byte, across the small blocks and many doublings") {
    dfx::append_buffer b;
    std::vector<std::byte> expected;
    std::mt19937 rng(7);
    // Sizes from 0 bytes to 300 KiB: past the first block and through many
    // doublings, to 9 MiB.
    std::uniform_int_distribution<std::size_t> size(0, 300 << 10);
    while (expected.size() < (std::size_t{9} << 20)) {
        const std::size_t n = size(rng);
        std::vector<std::byte> chunk(n);
        for (std::size_t i = 0; i < n; ++i) chunk[i] = pattern(expected.size() + i);
        b.append(chunk.data(), n);
        expected.insert(expected.end(), chunk.begin(), chunk.end());
        REQUIRE(b.size() == expected.size());
    }
    CHECK(std::memcmp(b.data(), expected.data(), expected.size()) == 0);
}

TEST_CASE("one append larger than twice what is held grows the buffer to fit it at once") {
    dfx::append_buffer b;
    b.append("abc", 3);
    std::vector<std::byte> big((std::size_t{5} << 20) + 17);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = pattern(i);
    b.append(big.data(), big.size());
    REQUIRE(b.size() == 3 + big.size());
    CHECK(std::memcmp(b.data(), "abc", 3) == 0);
    CHECK(std::memcmp(b.data() + 3, big.data(), big.size()) == 0);
}

TEST_CASE("extend() hands out room at the end that is kept as written in place") {
    dfx::append_buffer b;
    b.append("head", 4);
    std::byte* room = b.extend(6);
    std::memcpy(room, "-tail-", 6);
    CHECK(b.extend(0) == b.data() + 10);  // room for nothing: the end, and nothing added
    REQUIRE(b.size() == 10);
    CHECK(std::memcmp(b.data(), "head-tail-", 10) == 0);
}

TEST_CASE("records appended as spans come back as the same records, in order") {
    dfx::append_buffer b;
    std::vector<sample_record> all;
    for (std::uint64_t batch = 0; batch < 200; ++batch) {
        std::vector<sample_record> rs(batch % 37 + 1);
        for (std::size_t i = 0; i < rs.size(); ++i)
            rs[i] = {all.size() + i, static_cast<std::uint32_t>(batch), {1, 2, 3, 4, static_cast<std::uint32_t>(i)}};
        b.append(std::span<const sample_record>(rs));
        all.insert(all.end(), rs.begin(), rs.end());
    }
    const auto back = b.as<sample_record>();
    REQUIRE(back.size() == all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        CHECK(back[i].id == all[i].id);
        CHECK(back[i].core == all[i].core);
        CHECK(back[i].payload[4] == all[i].payload[4]);
    }
}

TEST_CASE("moving a buffer moves its bytes and leaves the source empty") {
    dfx::append_buffer a;
    a.append("kept bytes", 10);
    dfx::append_buffer b(std::move(a));
    CHECK(a.empty());
    CHECK(a.data() == nullptr);
    REQUIRE(b.size() == 10);
    CHECK(std::memcmp(b.data(), "kept bytes", 10) == 0);

    dfx::append_buffer c;
    c.append("old", 3);
    c = std::move(b);
    CHECK(b.empty());
    REQUIRE(c.size() == 10);
    CHECK(std::memcmp(c.data(), "kept bytes", 10) == 0);
    c.append("!", 1);  // a moved-to buffer still grows
    CHECK(std::memcmp(c.data(), "kept bytes!", 11) == 0);

    // A buffer in a vector survives the vector's own growth (the hosts keep one per channel).
    std::vector<dfx::append_buffer> per_channel(1);
    per_channel[0].append("first", 5);
    for (int i = 0; i < 100; ++i) per_channel.emplace_back();
    CHECK(std::memcmp(per_channel[0].data(), "first", 5) == 0);
}

TEST_CASE("a drain thread appends, the host reads after joining it") {
    dfx::append_buffer b;
    constexpr std::uint64_t records = 200'000;
    std::thread drain([&b] {
        std::vector<sample_record> buffer(1000);
        for (std::uint64_t next = 0; next < records;) {
            for (auto& r : buffer) r = {next++, 3, {}};
            b.append(std::span<const sample_record>(buffer));
        }
    });
    drain.join();
    const auto back = b.as<sample_record>();
    REQUIRE(back.size() == records);
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < records; ++i) wrong += back[i].id != i;
    CHECK(wrong == 0);
}

#if defined(__linux__)
namespace {

// The VmFlags line of the mapping holding `p` in /proc/self/smaps ("" if none).
std::string vm_flags_of(const void* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        std::uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
            inside = lo <= at && at < hi;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return "";
}

}  // namespace

TEST_CASE("a big buffer stays in ordinary pages: it does not ask for transparent huge pages") {
    // With MADV_HUGEPAGE a fault may compact memory before it zeroes 2 MiB,
    // on the drain thread, while the runtime waits for a CPU (append_buffer.hpp).
    dfx::append_buffer b;
    std::vector<std::byte> chunk(std::size_t{1} << 20, std::byte{1});
    for (int i = 0; i < 8; ++i) b.append(chunk.data(), chunk.size());
    const std::string flags = vm_flags_of(b.data());
    REQUIRE(!flags.empty());
    CHECK_MESSAGE(flags.find(" hg") == std::string::npos, flags);
}
#endif

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
namespace {

constexpr std::size_t page = 4096;

// Pages of [p, p + bytes) that are resident, in bytes (mincore).
std::size_t resident_bytes(const void* p, std::size_t bytes) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t first = at / page * page;
    std::vector<unsigned char> pages((at + bytes - first + page - 1) / page);
    REQUIRE(::mincore(reinterpret_cast<void*>(first), at + bytes - first, pages.data()) == 0);
    std::size_t n = 0;
    for (const unsigned char r : pages) n += (r & 1) ? page : 0;
    return n;
}

bool kernel_populates() {
    void* probe = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(probe != MAP_FAILED);
    const bool ok = ::madvise(probe, page, MADV_POPULATE_WRITE) == 0;
    ::munmap(probe, page);
    return ok;
}

}  // namespace

TEST_CASE("a buffer faults in a megabyte past what it holds in one call, not the whole of its room") {
    if (!kernel_populates()) {
        MESSAGE("this kernel does not populate ranges (MADV_POPULATE_WRITE): nothing to check");
        return;
    }
    constexpr std::size_t step = std::size_t{1} << 20;
    dfx::append_buffer b;
    // 5 MiB + 100 bytes held: the room is 8 MiB (doublings from 64 KiB).
    const std::vector<std::byte> chunk(std::size_t{1} << 20, std::byte{7});
    for (int i = 0; i < 5; ++i) b.append(chunk.data(), chunk.size());
    b.append(chunk.data(), 100);
    const std::size_t held = b.size();
    const std::size_t room = std::size_t{8} << 20;
    // Faulted in: everything held and about a step past it (before the first
    // write of a step's pages, not by it), and nothing further.
    CHECK(resident_bytes(b.data(), held) == (held + page - 1) / page * page);
    const std::size_t ahead = resident_bytes(b.data() + held, room - held);
    CHECK(ahead >= step - page);
    CHECK(ahead <= step + page);
    // The bytes are the bytes written.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < held; ++i) wrong += b.data()[i] != std::byte{7};
    CHECK(wrong == 0);
}

TEST_CASE("host_memory hands out a transport block already faulted in, as device memory is ready") {
    if (!kernel_populates()) {
        MESSAGE("this kernel does not populate ranges: host_memory writes each page instead");
    }
    constexpr std::size_t bytes = std::size_t{6} << 20;  // above glibc's mmap threshold: fresh pages
    void* block = dfx::host_memory::allocate(bytes);
    REQUIRE(block != nullptr);
    CHECK(resident_bytes(block, bytes) >= bytes - page);  // (a partial page at each end may wait)
    dfx::host_memory::release(block, bytes);
}
#endif
