// Reads scope_stats.jsonl (schema 6, also 5): the metadata line and the
// boundary records, one per line. Streams line by line, so memory is the
// records kept, never the whole file twice; a caller that needs no records
// kept (dfx scope-stats pairs them as they come) takes each one as read.
//
// Checked, not trusted: an empty file, a file without records, and a file
// whose records do not add up to the metadata's count (`total` = records
// written + `dropped`: a file cut short, or rows lost) are errors naming the
// file and both counts; a report from them would look healthy and be wrong.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/scope_stats/scope_sites.hpp"

namespace dfx::convert {

inline constexpr int scope_rings = 4;

struct scope_stats_metadata {
    int version = 0;
    bool fatal = false;
    std::uint64_t dropped = 0;
    std::uint64_t total = 0;
    std::array<double, scope_rings> task_window_max{};
    std::array<double, scope_rings> heap_max{};
    std::array<double, scope_rings> dep_pool_max{};
    double tensormap_max = 0;
};

// The three ring resources, in report order; tensormap is global.
enum class ring_resource { task_window = 0, heap = 1, dep_pool = 2 };
inline constexpr int ring_resources = 3;
inline constexpr const char* ring_resource_name[ring_resources] = {"task_window", "heap", "dep_pool"};

// One boundary record as kept until the scopes are paired: 72 bytes, the
// doubles first so that the small fields pack behind them.
struct scope_boundary {
    std::array<double, ring_resources> start{};  // *_start values
    std::array<double, ring_resources> end{};    // *_end values
    double tensormap = 0;
    std::uint32_t site = 0;  // into scope_stats_file::sites
    int depth = 0;
    std::uint8_t ring = 0;   // [0, scope_rings)
    bool begin = true;
    std::array<bool, ring_resources> present{};  // the record carried that resource
    bool has_tensormap = false;
};

struct scope_stats_file {
    scope_stats_metadata meta;
    scope_sites sites;
    std::vector<scope_boundary> records;
};

namespace detail {

// Where a value sits, for an error message: "file:line" or "file:line:
// \"key\"". Built only when a message is, not once per row and key: the
// reader's hot loop formats nothing.
struct scope_stats_where {
    const std::string& path;
    std::size_t line = 0;
    std::string_view key{};

    std::string str() const {
        std::string s = path + ":" + std::to_string(line);
        if (!key.empty()) s.append(": \"").append(printable_json_key(key)).append("\"");
        return s;
    }
    [[noreturn]] void fail(std::string_view what) const { throw input_error(str() + ": " + std::string(what)); }
};

// A resource level or capacity: a count of slots or bytes, so a non-negative
// integer (kept as double for the report's arithmetic). A fraction, a sign or
// another type is a corrupt file, not a level.
inline double number_at(simdjson::ondemand::value v, const scope_stats_where& where) {
    std::uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS && u <= std::uint64_t{INT64_MAX}) return static_cast<double>(u);
    where.fail("expected a non-negative integer below 2^63");
}

// A number stored in an integer field: integers exactly, other numbers
// truncated toward zero. A value outside T is an input error: converting it
// (double -> int) would be undefined behaviour.
template <class T>
T integer_at(simdjson::ondemand::value v, const scope_stats_where& where) {
    std::int64_t i = 0;
    std::uint64_t u = 0;
    bool fits = false;
    T out{};
    if (v.get_int64().get(i) == simdjson::SUCCESS) {
        fits = std::in_range<T>(i);
        out = static_cast<T>(i);
    } else if (v.get_uint64().get(u) == simdjson::SUCCESS) {
        fits = std::in_range<T>(u);
        out = static_cast<T>(u);
    } else {
        const double d = number_at(v, where);
        // (min - 1, max + 1) exclusive: exactly the doubles whose truncation fits T.
        fits = d > static_cast<double>(std::numeric_limits<T>::min()) - 1.0 &&
               d < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
        if (fits) out = static_cast<T>(d);
    }
    if (!fits) where.fail("number out of range");
    return out;
}

// The keys of one line's object, for the duplicate check: a line has a dozen
// keys, so a short list beats a set (and allocates once per file).
class seen_keys {
public:
    void clear() { keys_.clear(); }
    // False if `key` was seen before on this line. The views point into the
    // parser's string buffer, which holds for the line's document.
    bool add(std::string_view key) {
        for (const std::string_view k : keys_)
            if (k == key) return false;
        keys_.push_back(key);
        return true;
    }

private:
    std::vector<std::string_view> keys_;
};

// "task_window_start" -> (task_window, start); -1 when `key` names no ring resource.
inline int ring_resource_of(std::string_view key, bool& is_start) {
    for (int r = 0; r < ring_resources; ++r) {
        const std::string_view base = ring_resource_name[r];
        if (key.size() <= base.size() || key.substr(0, base.size()) != base) continue;
        const std::string_view rest = key.substr(base.size());
        if (rest == "_start" || rest == "_end") {
            is_start = rest == "_start";
            return r;
        }
    }
    return -1;
}

}  // namespace detail

// Hands each boundary record to on_record(const scope_boundary&), in file
// order, and keeps none: the result's records stay empty. The checks at the
// end (the count against the metadata's total) come after the last record
// was handed over; on an error the caller drops what it made of them.
template <class OnRecord>
scope_stats_file read_scope_stats(const std::string& path, OnRecord&& on_record) {
    require_regular_file(path);  // a FIFO or /dev/zero would never end
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open");
    scope_stats_file out;
    simdjson::ondemand::parser parser;
    std::string line;
    std::size_t line_no = 0;
    bool seen_metadata = false;
    bool has_total = false;  // the metadata line carried "total"
    std::size_t records = 0;
    detail::seen_keys keys;
    while (std::getline(in, line)) {
        ++line_no;
        const detail::scope_stats_where where{path, line_no};
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            if (line_no == 1) seen_metadata = true;  // an empty metadata line is allowed
            continue;
        }
        simdjson::padded_string padded(line);
        simdjson::ondemand::document doc;
        simdjson::ondemand::object object;
        if (parser.iterate(padded).get(doc) != simdjson::SUCCESS || doc.get_object().get(object) != simdjson::SUCCESS)
            where.fail("not a JSON object");
        keys.clear();
        // On-Demand stops at the object's closing brace: whatever follows it
        // on the line is checked here, or a row cut short by a stray '}'
        // would be read as complete. (simdjson 3.0 has no document::at_end();
        // past the last token the location is out of bounds.)
        const auto require_end = [&] {
            if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
                where.fail("trailing data after the JSON object");
        };
        try {
            if (!seen_metadata) {
                seen_metadata = true;
                auto& m = out.meta;
                for (auto field : object) {
                    std::string_view key;
                    if (field.unescaped_key().get(key)) where.fail("bad key");
                    if (!keys.add(key)) where.fail("duplicate key \"" + printable_json_key(key) + "\"");
                    const detail::scope_stats_where at{path, line_no, key};
                    simdjson::ondemand::value value;
                    if (field.value().get(value)) at.fail("bad value");
                    auto four = [&](std::array<double, scope_rings>& into) {
                        simdjson::ondemand::array a;
                        if (value.get_array().get(a)) at.fail("expected an array of 4 numbers");
                        std::size_t i = 0;
                        for (auto v : a) {
                            if (i >= scope_rings) at.fail("more than 4 entries");
                            simdjson::ondemand::value item;
                            if (v.get(item)) at.fail("bad entry");
                            into[i++] = detail::number_at(item, at);
                        }
                    };
                    if (key == "version") m.version = detail::integer_at<int>(value, at);
                    else if (key == "fatal") { bool b = false; if (value.get_bool().get(b)) at.fail("expected true or false"); m.fatal = b; }
                    else if (key == "dropped") m.dropped = detail::integer_at<std::uint64_t>(value, at);
                    else if (key == "total") m.total = detail::integer_at<std::uint64_t>(value, at), has_total = true;
                    else if (key == "task_window_max") four(m.task_window_max);
                    else if (key == "heap_max") four(m.heap_max);
                    else if (key == "dep_pool_max") four(m.dep_pool_max);
                    else if (key == "tensormap_max") m.tensormap_max = detail::number_at(value, at);
                }
                require_end();
                continue;
            }
            scope_boundary b;
            bool has_site = false, has_phase = false, has_ring = false;
            for (auto field : object) {
                std::string_view key;
                if (field.unescaped_key().get(key)) where.fail("bad key");
                if (!keys.add(key)) where.fail("duplicate key \"" + printable_json_key(key) + "\"");
                const detail::scope_stats_where at{path, line_no, key};
                simdjson::ondemand::value value;
                if (field.value().get(value)) at.fail("bad value");
                if (key == "site") {
                    std::string_view s;
                    if (value.get_string().get(s)) at.fail("expected a string");
                    b.site = out.sites.intern(s);
                    has_site = true;
                } else if (key == "phase") {
                    std::string_view s;
                    if (value.get_string().get(s) || (s != "begin" && s != "end"))
                        at.fail("expected \"begin\" or \"end\"");
                    b.begin = s == "begin";
                    has_phase = true;
                } else if (key == "depth") {
                    b.depth = detail::integer_at<int>(value, at);
                    // The root scope is depth 0 and the collector caps nesting (spec scope stats).
                    if (b.depth < 0) at.fail("a non-negative depth expected");
                } else if (key == "ring") {
                    const int ring = detail::integer_at<int>(value, at);
                    if (ring < 0 || ring >= scope_rings) at.fail("ring in [0, 3] expected");
                    b.ring = static_cast<std::uint8_t>(ring);
                    has_ring = true;
                } else if (key == "tensormap") {
                    b.tensormap = detail::number_at(value, at);
                    b.has_tensormap = true;
                } else {
                    bool is_start = false;
                    if (const int r = detail::ring_resource_of(key, is_start); r >= 0) {
                        const auto i = static_cast<std::size_t>(r);
                        (is_start ? b.start : b.end)[i] = detail::number_at(value, at);
                        if (is_start) b.present[i] = true;
                    }
                }
            }
            require_end();
            if (!has_site || !has_phase || !has_ring)
                where.fail("a scope record needs \"site\", \"phase\" and \"ring\"");
            ++records;
            on_record(std::as_const(b));
        } catch (const simdjson::simdjson_error& e) {
            where.fail(e.what());
        }
    }
    if (in.bad()) throw input_error(path + ": read error");
    if (line_no == 0) throw input_error(path + ": file is empty (expected a metadata line and scope records)");
    if (records == 0)
        throw input_error(path + ": no scope records after the metadata line (total " + std::to_string(out.meta.total) +
                          "): was scope stats on for the run, and did it finish?");
    if (has_total && records + out.meta.dropped != out.meta.total)
        throw input_error(path + ": the metadata says total " + std::to_string(out.meta.total) + " records (" +
                          std::to_string(out.meta.dropped) + " dropped), but the file has " +
                          std::to_string(records) + ": the file is truncated or records were lost");
    return out;
}

// The file with every record kept, for pair_scopes() and dfx report.
inline scope_stats_file read_scope_stats(const std::string& path) {
    std::vector<scope_boundary> records;
    scope_stats_file out = read_scope_stats(path, [&](const scope_boundary& b) { records.push_back(b); });
    out.records = std::move(records);
    return out;
}

}  // namespace dfx::convert
