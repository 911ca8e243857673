// row_array: a converter's big table of fixed-size rows, grown without
// copying what it holds, whose read-once prefix can be handed back.
//
//   dfx::convert::row_array<aicore_row> rows;
//   rows.push_back(r);                        // as the reader checks each row
//   std::sort(rows.begin(), rows.end(), by_key);
//   for (std::size_t i = 0; i < rows.size(); ++i) {
//       use(rows[i]);
//       rows.release_prefix(i);               // rows [0, i) will not be read again
//   }
//   rows = {};                                // freed
//
// Why not std::vector: a vector that doubles allocates the new block, copies
// every row into it and only then frees the old one, so the largest table of
// a run is held twice at its last doubling, and every byte is copied again
// at each doubling. At 10^7 tasks the AICore and AICPU rows are 1.1 GB and
// 0.74 GB: their last doublings were the read's peak. Here growth is
// realloc, which glibc serves for a block of this size by mremap (the
// kernel moves page tables, not bytes): 23 million 48-byte rows went in in
// 0.23 s and 1,057 MB peak against a vector's 3.3 s and 1,540 MB (on
// transparent huge pages, as dfx runs; 4.0 s against 11.6 s without).
//
// Why release_prefix: a join that walks two sorted tables front to back
// frees, as it goes, the pages behind it (madvise MADV_DONTNEED), so the
// tasks it builds take the place of the rows they came from instead of
// adding to them. Only whole pages wholly behind the mark go, in steps of a
// few MB (a 2 MiB huge page is not split); the rows there read as zeros
// afterwards, so the caller must not read them again. Elsewhere than Linux
// it does nothing.
//
// Rows must be trivially copyable (they move as bytes). Not thread-safe.
// Running out of memory throws std::bad_alloc, as a vector would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dfx::convert {

template <class Row>
class row_array {
    static_assert(std::is_trivially_copyable_v<Row>, "row_array moves its rows as bytes (realloc)");
    static_assert(alignof(Row) <= alignof(std::max_align_t), "row_array: over-aligned row");

public:
    using value_type = Row;
    using iterator = Row*;
    using const_iterator = const Row*;

    row_array() noexcept = default;
    row_array(row_array&& other) noexcept
        : rows_(std::exchange(other.rows_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          capacity_(std::exchange(other.capacity_, 0)),
          released_bytes_(std::exchange(other.released_bytes_, 0)) {}
    row_array& operator=(row_array&& other) noexcept {
        if (this != &other) {
            std::free(rows_);
            rows_ = std::exchange(other.rows_, nullptr);
            size_ = std::exchange(other.size_, 0);
            capacity_ = std::exchange(other.capacity_, 0);
            released_bytes_ = std::exchange(other.released_bytes_, 0);
        }
        return *this;
    }
    row_array(const row_array&) = delete;
    row_array& operator=(const row_array&) = delete;
    ~row_array() { std::free(rows_); }

    void push_back(const Row& r) {
        if (size_ == capacity_) {
            const Row copy = r;  // `r` may be one of ours, moved by the growth
            grow(size_ + 1);
            rows_[size_++] = copy;
            return;
        }
        rows_[size_++] = r;
    }
    void reserve(std::size_t n) {
        if (n > capacity_) resize_block(n);
    }

    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] Row* data() noexcept { return rows_; }
    [[nodiscard]] const Row* data() const noexcept { return rows_; }
    [[nodiscard]] Row* begin() noexcept { return rows_; }
    [[nodiscard]] Row* end() noexcept { return rows_ + size_; }
    [[nodiscard]] const Row* begin() const noexcept { return rows_; }
    [[nodiscard]] const Row* end() const noexcept { return rows_ + size_; }
    [[nodiscard]] Row& operator[](std::size_t i) noexcept { return rows_[i]; }
    [[nodiscard]] const Row& operator[](std::size_t i) const noexcept { return rows_[i]; }
    [[nodiscard]] Row& back() noexcept { return rows_[size_ - 1]; }

    // Rows [0, n) will not be read again: the whole pages they fill are
    // handed back, once they add up to `release_step` bytes past the last
    // release (so a caller may call this for every row). Reading a released
    // row is wrong (it reads as zeros); pushing after a release is fine.
    void release_prefix(std::size_t n) noexcept {
#if defined(__linux__)
        if (n > size_) n = size_;
        const auto begin = reinterpret_cast<std::uintptr_t>(rows_);
        const std::uintptr_t from = (begin + page_bytes - 1) / page_bytes * page_bytes + released_bytes_;
        const std::uintptr_t to = (begin + n * sizeof(Row)) / release_step * release_step;
        if (to <= from || to - from < release_step) return;
        if (::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0) released_bytes_ += to - from;
#else
        (void)n;
#endif
    }

private:
    static constexpr std::size_t page_bytes = 4096;
    // A few huge pages (2 MiB each) at a time: one call per step, and no
    // huge page split by a release that ends inside it.
    static constexpr std::size_t release_step = std::size_t{8} << 20;

    void grow(std::size_t at_least) {
        if (capacity_ > SIZE_MAX / sizeof(Row) / 2) throw std::bad_alloc();
        std::size_t want = capacity_ == 0 ? std::size_t{1024} : capacity_ * 2;
        if (want < at_least) want = at_least;
        resize_block(want);
    }
    void resize_block(std::size_t rows) {
        if (rows > SIZE_MAX / sizeof(Row)) throw std::bad_alloc();
        void* p = std::realloc(rows_, rows * sizeof(Row));
        if (p == nullptr) throw std::bad_alloc();
        if (p != rows_) released_bytes_ = 0;  // (a moved block's released pages may have come back as zeros)
        rows_ = static_cast<Row*>(p);
        capacity_ = rows;
    }

    Row* rows_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
    std::size_t released_bytes_ = 0;  // from the first whole page on
};

}  // namespace dfx::convert
