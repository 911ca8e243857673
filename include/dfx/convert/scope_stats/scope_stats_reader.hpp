// Reads scope_stats.jsonl (schema 6, also 5): the metadata line and the
// boundary records, one per line. Streams line by line, so memory is the
// records kept, never the whole file twice.
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
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"

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

struct scope_boundary {
    std::string site;
    bool begin = true;
    int depth = 0;
    int ring = 0;
    std::array<double, ring_resources> start{};  // *_start values
    std::array<double, ring_resources> end{};    // *_end values
    std::array<bool, ring_resources> present{};  // the record carried that resource
    double tensormap = 0;
    bool has_tensormap = false;
};

struct scope_stats_file {
    scope_stats_metadata meta;
    std::vector<scope_boundary> records;
};

namespace detail {

// A resource level or capacity: a count of slots or bytes, so a non-negative
// integer (kept as double for the report's arithmetic). A fraction, a sign or
// another type is a corrupt file, not a level.
inline double number_at(simdjson::ondemand::value v, const std::string& where) {
    std::uint64_t u = 0;
    if (v.get_uint64().get(u) == simdjson::SUCCESS && u <= std::uint64_t{INT64_MAX}) return static_cast<double>(u);
    throw input_error(where + ": expected a non-negative integer below 2^63");
}

// A number stored in an integer field: integers exactly, other numbers
// truncated toward zero. A value outside T is an input error: converting it
// (double -> int) would be undefined behaviour.
template <class T>
T integer_at(simdjson::ondemand::value v, const std::string& where) {
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
    if (!fits) throw input_error(where + ": number out of range");
    return out;
}

}  // namespace detail

inline scope_stats_file read_scope_stats(const std::string& path) {
    require_regular_file(path);  // a FIFO or /dev/zero would never end
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open");
    scope_stats_file out;
    simdjson::ondemand::parser parser;
    std::string line;
    std::size_t line_no = 0;
    bool seen_metadata = false;
    bool has_total = false;  // the metadata line carried "total"
    while (std::getline(in, line)) {
        ++line_no;
        const std::string where = path + ":" + std::to_string(line_no);
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            if (line_no == 1) seen_metadata = true;  // an empty metadata line is allowed
            continue;
        }
        simdjson::padded_string padded(line);
        simdjson::ondemand::document doc;
        simdjson::ondemand::object object;
        if (parser.iterate(padded).get(doc) != simdjson::SUCCESS || doc.get_object().get(object) != simdjson::SUCCESS)
            throw input_error(where + ": not a JSON object");
        try {
            if (!seen_metadata) {
                seen_metadata = true;
                auto& m = out.meta;
                std::set<std::string, std::less<>> keys;
                for (auto field : object) {
                    std::string_view key;
                    if (field.unescaped_key().get(key)) throw input_error(where + ": bad key");
                    if (!keys.emplace(key).second) throw input_error(where + ": duplicate key \"" + std::string(key) + "\"");
                    const std::string at = where + ": \"" + std::string(key) + "\"";
                    simdjson::ondemand::value value;
                    if (field.value().get(value)) throw input_error(at + ": bad value");
                    auto four = [&](std::array<double, scope_rings>& into) {
                        simdjson::ondemand::array a;
                        if (value.get_array().get(a)) throw input_error(at + ": expected an array of 4 numbers");
                        std::size_t i = 0;
                        for (auto v : a) {
                            if (i >= scope_rings) throw input_error(at + ": more than 4 entries");
                            simdjson::ondemand::value item;
                            if (v.get(item)) throw input_error(at + ": bad entry");
                            into[i++] = detail::number_at(item, at);
                        }
                    };
                    if (key == "version") m.version = detail::integer_at<int>(value, at);
                    else if (key == "fatal") { bool b = false; if (value.get_bool().get(b)) throw input_error(at + ": expected true or false"); m.fatal = b; }
                    else if (key == "dropped") m.dropped = detail::integer_at<std::uint64_t>(value, at);
                    else if (key == "total") m.total = detail::integer_at<std::uint64_t>(value, at), has_total = true;
                    else if (key == "task_window_max") four(m.task_window_max);
                    else if (key == "heap_max") four(m.heap_max);
                    else if (key == "dep_pool_max") four(m.dep_pool_max);
                    else if (key == "tensormap_max") m.tensormap_max = detail::number_at(value, at);
                }
                continue;
            }
            scope_boundary b;
            bool has_site = false, has_phase = false, has_ring = false;
            std::set<std::string, std::less<>> keys;
            for (auto field : object) {
                std::string_view key;
                if (field.unescaped_key().get(key)) throw input_error(where + ": bad key");
                if (!keys.emplace(key).second) throw input_error(where + ": duplicate key \"" + std::string(key) + "\"");
                const std::string at = where + ": \"" + std::string(key) + "\"";
                simdjson::ondemand::value value;
                if (field.value().get(value)) throw input_error(at + ": bad value");
                if (key == "site") {
                    std::string_view s;
                    if (value.get_string().get(s)) throw input_error(at + ": expected a string");
                    b.site = std::string(s);
                    has_site = true;
                } else if (key == "phase") {
                    std::string_view s;
                    if (value.get_string().get(s) || (s != "begin" && s != "end"))
                        throw input_error(at + ": expected \"begin\" or \"end\"");
                    b.begin = s == "begin";
                    has_phase = true;
                } else if (key == "depth") {
                    b.depth = detail::integer_at<int>(value, at);
                } else if (key == "ring") {
                    b.ring = detail::integer_at<int>(value, at);
                    if (b.ring < 0 || b.ring >= scope_rings) throw input_error(at + ": ring in [0, 3] expected");
                    has_ring = true;
                } else if (key == "tensormap") {
                    b.tensormap = detail::number_at(value, at);
                    b.has_tensormap = true;
                } else {
                    for (int r = 0; r < ring_resources; ++r) {
                        const std::string base = ring_resource_name[r];
                        if (key == base + "_start") {
                            b.start[static_cast<std::size_t>(r)] = detail::number_at(value, at);
                            b.present[static_cast<std::size_t>(r)] = true;
                        } else if (key == base + "_end") {
                            b.end[static_cast<std::size_t>(r)] = detail::number_at(value, at);
                        }
                    }
                }
            }
            if (!has_site || !has_phase || !has_ring)
                throw input_error(where + ": a scope record needs \"site\", \"phase\" and \"ring\"");
            out.records.push_back(std::move(b));
        } catch (const simdjson::simdjson_error& e) {
            throw input_error(where + ": " + e.what());
        }
    }
    if (in.bad()) throw input_error(path + ": read error");
    if (line_no == 0) throw input_error(path + ": file is empty (expected a metadata line and scope records)");
    if (out.records.empty())
        throw input_error(path + ": no scope records after the metadata line (total " + std::to_string(out.meta.total) +
                          "): was scope stats on for the run, and did it finish?");
    if (has_total && out.records.size() + out.meta.dropped != out.meta.total)
        throw input_error(path + ": the metadata says total " + std::to_string(out.meta.total) + " records (" +
                          std::to_string(out.meta.dropped) + " dropped), but the file has " +
                          std::to_string(out.records.size()) + ": the file is truncated or records were lost");
    return out;
}

}  // namespace dfx::convert
