// What a drain thread keeps of a run: bytes that are only ever appended,
// stored so that growing never copies what is already held.
//
//   dfx::append_buffer kept;
//   kept.append(records);              // on the drain thread: a span of records,
//   kept.append(bytes, n);             // or bytes,
//   std::byte* at = kept.extend(n);    // or room for n bytes, to be written in place
//   ...after the run (the drain thread joined)...
//   for (const dfx::pmu_record& r : kept.as<dfx::pmu_record>()) ...
//
// Why not std::vector: a vector that doubles copies everything it holds at
// each doubling, and every fresh 4 KiB page of each new block costs a page
// fault, so keeping N bytes copies about N more and faults about 2N of
// memory in. With every collector on, that was most of what the drain
// threads did (perf of dfx-sim's stream workload: the vectors' memmove,
// their page faults and malloc's top-of-heap growth, about a sixth of all
// the CPU time of the run), on the cores the runtime's own threads need.
// Here, on Linux, the bytes live in an anonymous mapping that mremap grows
// (the kernel moves page tables, not bytes). Elsewhere: realloc.
//
// Why not transparent huge pages: the mapping asked for them (MADV_HUGEPAGE)
// from 2 MiB on, so that a fault brought in 2 MiB instead of 4 KiB. On a
// kernel whose THP defrag setting is `madvise` (Debian's default) such a
// fault may compact memory before it zeroes its 2 MiB, on the drain thread,
// while the runtime's threads wait for a CPU: dfx-sim's stream workload
// with every collector on ran 6-14 % faster in 4 KiB pages (100,000 tasks,
// 2 vCPUs, four sittings; docs/hot-paths.md, "End to end").
//
// Why faulted in a megabyte at a time: a fresh page costs a page fault at
// its first write (about 2.7 ms per MB of them on the 2-vCPU machine of
// docs/hot-paths.md); one madvise(MADV_POPULATE_WRITE) over 256 pages does
// the same work for about half of that (docs/converters.md, "Tenth round").
// So the buffer faults in its next megabyte in one call when its writer
// reaches it (at most that much ahead of what it holds); where the call is
// missing, pages fault in as they are written.
//
// Not thread-safe: one thread appends; others read after joining it.
// Running out of memory throws std::bad_alloc, as a vector would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dfx {

class append_buffer {
public:
    // The first block: a drain's first buffer of records usually fits.
    static constexpr std::size_t first_block_bytes = std::size_t{64} << 10;

    append_buffer() noexcept = default;
    append_buffer(append_buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          capacity_(std::exchange(other.capacity_, 0)),
          populated_(std::exchange(other.populated_, 0)) {}
    append_buffer& operator=(append_buffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            capacity_ = std::exchange(other.capacity_, 0);
            populated_ = std::exchange(other.populated_, 0);
        }
        return *this;
    }
    append_buffer(const append_buffer&) = delete;
    append_buffer& operator=(const append_buffer&) = delete;
    ~append_buffer() { release(); }

    // Room for `n` more bytes at the end, uninitialised; they count as held.
    std::byte* extend(std::size_t n) {
        if (n > capacity_ - size_) grow(n);
        std::byte* at = data_ + size_;
        size_ += n;
        if (size_ > populated_) populate();
        return at;
    }
    void append(const void* bytes, std::size_t n) {
        if (n > 0) std::memcpy(extend(n), bytes, n);
    }
    template <class Record>
    void append(std::span<const Record> records) {
        static_assert(std::is_trivially_copyable_v<Record>, "dfx::append_buffer holds records copied as bytes");
        append(records.data(), records.size_bytes());
    }

    const std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

    // The bytes as the records they were appended as (whole records only).
    template <class Record>
    std::span<const Record> as() const noexcept {
        static_assert(std::is_trivially_copyable_v<Record>, "dfx::append_buffer holds records copied as bytes");
        static_assert(alignof(Record) <= alignof(std::max_align_t), "dfx::append_buffer: over-aligned record");
        if (data_ == nullptr) return {};
        return {reinterpret_cast<const Record*>(data_), size_ / sizeof(Record)};
    }
    // The same, to update records in place (moved by the next append).
    template <class Record>
    std::span<Record> as() noexcept {
        static_assert(std::is_trivially_copyable_v<Record>, "dfx::append_buffer holds records copied as bytes");
        static_assert(alignof(Record) <= alignof(std::max_align_t), "dfx::append_buffer: over-aligned record");
        if (data_ == nullptr) return {};
        return {reinterpret_cast<Record*>(data_), size_ / sizeof(Record)};
    }

private:
    static constexpr std::size_t page_bytes = 4096;  // blocks are whole pages
    static constexpr std::size_t populate_step = std::size_t{1} << 20;
    static constexpr std::size_t no_populating = SIZE_MAX;  // populated_ once the call is refused

    // Faults in the pages up to a step past what is held, in one call.
    void populate() noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
        std::size_t to = (size_ + populate_step + page_bytes - 1) / page_bytes * page_bytes;
        if (to > capacity_) to = capacity_;
        if (::madvise(data_ + populated_, to - populated_, MADV_POPULATE_WRITE) == 0) {
            populated_ = to;
            return;
        }
#endif
        populated_ = no_populating;  // faulted in as written, as any memory
    }

    void grow(std::size_t n) {
        if (n > SIZE_MAX / 2 - size_) throw std::bad_alloc();
        std::size_t want = capacity_ == 0 ? first_block_bytes : capacity_ * 2;
        if (want < size_ + n) want = size_ + n;
        want = (want + page_bytes - 1) / page_bytes * page_bytes;
        data_ = static_cast<std::byte*>(resize_block(data_, capacity_, want));
        capacity_ = want;
    }

#if defined(__linux__)
    static void* resize_block(void* old, std::size_t old_bytes, std::size_t bytes) {
        void* p = old == nullptr ? ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                 : ::mremap(old, old_bytes, bytes, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) throw std::bad_alloc();
        return p;
    }
    void release() noexcept {
        if (data_ != nullptr) ::munmap(data_, capacity_);
        data_ = nullptr;
        populated_ = 0;
    }
#else
    static void* resize_block(void* old, std::size_t /*old_bytes*/, std::size_t bytes) {
        void* p = std::realloc(old, bytes);
        if (p == nullptr) throw std::bad_alloc();
        return p;
    }
    void release() noexcept {
        std::free(data_);
        data_ = nullptr;
        populated_ = 0;
    }
#endif

    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    std::size_t populated_ = 0;  // bytes from data_ faulted in (page-aligned), or no_populating
};

}  // namespace dfx
