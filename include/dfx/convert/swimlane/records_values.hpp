// records_values: typed reads of the records file's values, each error naming
// the file, its byte and the element ("aicore_tasks[12][3]: ...").
//
// The records reader hands simdjson small documents cut out of the file: a
// member's value, or a batch "[e1,e2,...]" of an array's elements whose bytes
// between the brackets are the file's own. `parsing` says which one the
// parser is in, so an error inside it is located in the file:
//
//   records_values vals(path, lenient);
//   vals.parsing(&doc, json, file_offset, /*bracketed=*/true);
//   std::uint64_t t = vals.timestamp(v, [&] { return fmt::format("aicore_tasks[{}][3]", row); });
//
// lenient: negative times, counters and ids read as the reference reads them
// (a negative time is 0, i.e. absent; an id is masked to u64) instead of
// being errors.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_value.hpp"

namespace dfx::convert::swimlane {

class records_values {
public:
    using value = simdjson::ondemand::value;

    records_values(std::string path, bool lenient) : path_(std::move(path)), lenient_(lenient) {}

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    [[nodiscard]] bool lenient() const noexcept { return lenient_; }

    // The document errors are located in: `json` starts at file offset
    // `offset`, after a '[' of our own when `bracketed` (a batch).
    // A null `doc` (simdjson refused the document): errors name its end.
    void parsing(simdjson::ondemand::document* doc, std::string_view json, std::uint64_t offset, bool bracketed) {
        doc_ = doc;
        json_ = json;
        offset_ = offset;
        bracketed_ = bracketed;
    }

    // "<file>: <where>: <what> (at byte N)", N where simdjson stands in the
    // document (just past the value at fault), else where the document ends.
    [[noreturn]] void fail_at(std::string_view where, std::string_view what) const {
        throw input_error(fmt::format("{}: {}: {} (at byte {})", path_, where, what, byte_now()));
    }
    [[noreturn]] void fail_at_byte(std::uint64_t byte, std::string_view what) const {
        throw input_error(fmt::format("{}: {} (at byte {})", path_, what, byte));
    }

    template <class V, class Where>
    int128 integer(V& v, const Where& where) {
        int128 x = 0;
        if (!read_integer(v, x, why_)) fail_at(where(), why_);
        return x;
    }
    // 0 means "absent" to every consumer; so does a negative time, leniently.
    template <class V, class Where>
    std::uint64_t timestamp(V& v, const Where& where) {
        const int128 x = integer(v, where);
        if (x < 0) negative_time(x, where);
        if (x > INT64_MAX) fail_at(where(), "expected a non-negative integer cycle count, found one above 2^63-1");
        return x <= 0 ? 0 : static_cast<std::uint64_t>(x);
    }
    template <class Where>
    void negative_time(int128 x, const Where& where) const {
        if (!lenient_)
            fail_at(where(), fmt::format("expected a non-negative integer cycle count, found {}", to_decimal(x)));
    }
    template <class V, class Where>
    std::int64_t int64(V& v, const Where& where) {
        const int128 x = integer(v, where);
        if (x > INT64_MAX || x < INT64_MIN) fail_at(where(), "integer out of range");
        return static_cast<std::int64_t>(x);
    }
    // A counter (loop_iter, tasks_processed, pop_hit, submit_idx, ...): negative only leniently.
    template <class V, class Where>
    std::int64_t counter(V& v, const Where& where) {
        const std::int64_t x = int64(v, where);
        if (x < 0 && !lenient_) fail_at(where(), fmt::format("expected a non-negative integer count, found {}", x));
        return x;
    }
    // Leniently, negative ids are masked to u64, like the reference's normalisation.
    template <class V, class Where>
    std::uint64_t task_id(V& v, const Where& where) {
        const int128 x = integer(v, where);
        if (x < 0 && !lenient_)
            fail_at(where(), fmt::format("expected a non-negative integer task id, found {}", to_decimal(x)));
        return static_cast<std::uint64_t>(x);
    }
    template <class V, class Where>
    std::string string(V& v, const Where& where) {
        std::string s;
        if (!read_string(v, s, why_)) fail_at(where(), why_);
        return s;
    }
    // Reads without failing (the optional parts of the metadata).
    template <class V>
    bool try_integer(V& v, int128& out) {
        return read_integer(v, out, why_);
    }
    template <class V>
    bool try_string(V& v, std::string& out) {
        return read_string(v, out, why_);
    }

    // The value's JSON text as the file has it (an object or array whole,
    // else its one token), trailing whitespace dropped.
    template <class Where>
    std::string raw_text(value& v, const Where& where) const {
        std::string_view raw;
        simdjson::ondemand::json_type t{};
        if (v.type().get(t) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
        simdjson::error_code err = simdjson::SUCCESS;
        if (t == simdjson::ondemand::json_type::object) {
            simdjson::ondemand::object o;
            err = v.get_object().get(o);
            if (!err) err = o.raw_json().get(raw);
        } else if (t == simdjson::ondemand::json_type::array) {
            simdjson::ondemand::array a;
            err = v.get_array().get(a);
            if (!err) err = a.raw_json().get(raw);
        } else {
            raw = v.raw_json_token();
        }
        if (err != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
            raw.remove_suffix(1);
        }
        return std::string(raw);
    }

private:
    std::uint64_t byte_now() const {
        const std::size_t lead = bracketed_ ? 1 : 0;
        const std::size_t content = json_.size() >= 2 * lead ? json_.size() - 2 * lead : 0;
        const char* loc = nullptr;
        if (doc_ == nullptr || doc_->current_location().get(loc) != simdjson::SUCCESS || loc < json_.data() + lead ||
            loc > json_.data() + lead + content)
            return offset_ + content;
        return offset_ + static_cast<std::uint64_t>(loc - json_.data() - static_cast<std::ptrdiff_t>(lead));
    }

    std::string path_;
    bool lenient_;
    std::string why_;
    simdjson::ondemand::document* doc_ = nullptr;
    std::string_view json_;
    std::uint64_t offset_ = 0;
    bool bracketed_ = false;
};

}  // namespace dfx::convert::swimlane
