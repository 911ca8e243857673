// delta_coded_list: records appended in order and read back in order, each
// coded as its steps from the one before it, so that a long run of records
// that change a little from one to the next (a thread's loop phases, an
// orchestrator's submits) takes a few bytes a record. One list for every
// such stream; a codec says what a record's steps are.
//
//   struct my_codec {
//       using value_type = my_record;                  // trivially copyable
//       static constexpr std::size_t max_bytes = 21;   // the longest code of one record
//       static constexpr my_record origin() noexcept;  // what the first record is coded against
//       static void encode(const my_record& previous, const my_record& r, std::uint8_t*& out) noexcept;
//       static void decode(my_record& previous_then_this, const std::uint8_t*& in) noexcept;
//   };
//   delta_coded_list<my_codec> list;
//   list.push_back(r);
//   for (const my_record& r : list) ...   // the same values, in push order
//
// Codecs write zigzag varints of wrapped 64-bit differences
// (delta_varint.hpp), so any values code and decode exactly; far steps just
// take more bytes. Reading is forward only: each record decodes from the
// one before it (delta_coded_marks, below: from a record kept every 256).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace dfx::convert {

template <class Codec>
class delta_coded_list {
public:
    using value_type = typename Codec::value_type;
    class iterator;

    void push_back(const value_type& r) {
        std::uint8_t code[Codec::max_bytes];
        std::uint8_t* end = code;
        Codec::encode(last_, r, end);
        bytes_.insert(bytes_.end(), code, end);
        last_ = r;
        ++count_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
    [[nodiscard]] std::size_t byte_size() const noexcept { return bytes_.size(); }
    [[nodiscard]] iterator begin() const noexcept {
        iterator it;
        it.at_ = bytes_.data();
        it.end_ = bytes_.data() + bytes_.size();
        it.record_ = Codec::origin();
        it.decode();
        return it;
    }
    [[nodiscard]] iterator end() const noexcept {
        iterator it;
        it.at_ = it.end_ = bytes_.data() + bytes_.size();
        return it;
    }
    // Frees the records; the list can be filled again.
    void release() noexcept {
        std::vector<std::uint8_t>().swap(bytes_);
        count_ = 0;
        last_ = Codec::origin();
    }

private:
    std::vector<std::uint8_t> bytes_;
    std::size_t count_ = 0;
    value_type last_ = Codec::origin();  // the record pushed last
};

// Decodes the records in order.
template <class Codec>
class delta_coded_list<Codec>::iterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = typename Codec::value_type;
    using difference_type = std::ptrdiff_t;
    using reference = const value_type&;
    using pointer = const value_type*;

    iterator() = default;
    const value_type& operator*() const noexcept { return record_; }
    const value_type* operator->() const noexcept { return &record_; }
    iterator& operator++() noexcept {
        at_ = next_;
        decode();
        return *this;
    }
    iterator operator++(int) noexcept {
        iterator before = *this;
        ++*this;
        return before;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.at_ == b.at_; }

private:
    // The record at at_, from the one before it (record_); nothing at the end.
    void decode() noexcept {
        if (at_ == end_) return;
        const std::uint8_t* p = at_;
        Codec::decode(record_, p);
        next_ = p;
    }
    friend class delta_coded_list;
    const std::uint8_t* at_ = nullptr;
    const std::uint8_t* end_ = nullptr;
    const std::uint8_t* next_ = nullptr;
    value_type record_{};
};

// Where every `stride`-th record of a list starts, kept in one pass over
// it, so that a reader can start near any record: the records of a chunk,
// read on another thread.
//
//   const delta_coded_marks<my_codec> marks(list);
//   delta_coded_marks<my_codec>::reader read;   // one per chunk
//   const my_record& r = read(marks, i);        // fast when i steps by one
template <class Codec>
class delta_coded_marks {
public:
    using value_type = typename Codec::value_type;
    using iterator = typename delta_coded_list<Codec>::iterator;
    static constexpr std::size_t stride = 256;

    explicit delta_coded_marks(const delta_coded_list<Codec>& list) : size_(list.size()) {
        marks_.reserve(size_ / stride + 1);
        auto it = list.begin();
        for (std::size_t i = 0; i < size_; ++i, ++it) {
            if (i % stride == 0) marks_.push_back(it);
        }
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    class reader {
    public:
        // Record i (< marks.size()).
        const value_type& operator()(const delta_coded_marks& marks, std::size_t i) noexcept {
            if (from_ != &marks || i < at_ || i - at_ >= stride) {
                from_ = &marks;
                it_ = marks.marks_[i / stride];
                at_ = i / stride * stride;
            }
            for (; at_ < i; ++at_) ++it_;
            return *it_;
        }

    private:
        const delta_coded_marks* from_ = nullptr;
        std::size_t at_ = 0;
        iterator it_;
    };

private:
    std::size_t size_;
    std::vector<iterator> marks_;
};

}  // namespace dfx::convert
