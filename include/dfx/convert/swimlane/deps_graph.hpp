// deps_graph: the parts of deps.json the swimlane tools join with the timing
// (spec chip-swimlane.md §4.2): the dependency edges, each task's kernel ids
// (to name the kernels) and each task's block_num (to recognise SPMD tasks).
//
// deps.json is optional for the converter: a missing file means no arrows.
// A file that is there is checked, not trusted: invalid JSON, a missing or
// non-array `edges`, an edge that is not an object or whose pred / succ is
// not a task id (checked_fields.hpp), a task without a valid task_id, a
// repeated top-level key: one input_error naming the file, the byte and the
// member. Leniently (`--lenient`) the reference's reading is kept instead:
// invalid JSON or no `edges` array leaves `edges_usable` false (the converter
// warns and draws no arrows) and unusable entries are skipped. Only the
// needed fields are extracted, streaming, so the per-edge tensor annotations
// and the `tensors` table never sit in memory.
//
// Edge order matters to the output: the reference groups unique (pred, succ)
// pairs by pred in first-seen order of pred, successors in first-seen order.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/checked_fields.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_stream.hpp"
#include "dfx/convert/common/json_value.hpp"

namespace dfx::convert::swimlane {

struct deps_edge {
    std::uint64_t pred = 0;
    std::uint64_t succ = 0;
};

struct deps_graph {
    bool file_exists = false;
    bool edges_usable = false;     // the reference's load_deps_json() returned a dict
    std::vector<deps_edge> edges;  // unique pairs, in the reference's iteration order

    struct kernel_entry {
        std::uint64_t task_id;
        std::int64_t ids[3];  // [aic, aiv0, aiv1], -1 = inactive
    };
    struct block_entry {
        std::uint64_t task_id;
        std::int64_t block_num;  // >= 1
    };
    std::vector<kernel_entry> kernels;  // sorted by task id; empty = no kernel map
    std::vector<block_entry> blocks;    // sorted by task id; empty = no block map

    // Index: for each pred, its run of edges ([first, first + count)).
    struct pred_run {
        std::uint64_t pred;
        std::uint32_t first;
        std::uint32_t count;
    };
    std::vector<pred_run> by_pred;       // sorted by pred
    std::vector<std::uint32_t> by_succ;  // edge indices sorted by (succ, edge index)

    [[nodiscard]] bool has_edges() const noexcept { return edges_usable && !edges.empty(); }

    // Successors of `pred` (in first-seen order).
    [[nodiscard]] std::pair<const deps_edge*, const deps_edge*> succs(std::uint64_t pred) const {
        auto it = std::lower_bound(by_pred.begin(), by_pred.end(), pred,
                                   [](const pred_run& r, std::uint64_t p) { return r.pred < p; });
        if (it == by_pred.end() || it->pred != pred) return {nullptr, nullptr};
        return {edges.data() + it->first, edges.data() + it->first + it->count};
    }
    // Indices (into edges) of the edges into `succ`, in iteration order.
    [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> preds(std::uint64_t succ) const {
        auto lo = std::lower_bound(by_succ.begin(), by_succ.end(), succ,
                                   [&](std::uint32_t e, std::uint64_t s) { return edges[e].succ < s; });
        auto hi = std::upper_bound(lo, by_succ.end(), succ,
                                   [&](std::uint64_t s, std::uint32_t e) { return s < edges[e].succ; });
        return {by_succ.data() + (lo - by_succ.begin()), by_succ.data() + (hi - by_succ.begin())};
    }
    [[nodiscard]] const kernel_entry* kernel_ids(std::uint64_t id) const {
        auto it = std::lower_bound(kernels.begin(), kernels.end(), id,
                                   [](const kernel_entry& k, std::uint64_t v) { return k.task_id < v; });
        return it != kernels.end() && it->task_id == id ? &*it : nullptr;
    }
    [[nodiscard]] const block_entry* block(std::uint64_t id) const {
        auto it = std::lower_bound(blocks.begin(), blocks.end(), id,
                                   [](const block_entry& b, std::uint64_t v) { return b.task_id < v; });
        return it != blocks.end() && it->task_id == id ? &*it : nullptr;
    }
};

namespace detail {

// Python int(v) for a task id, masked to u64 (the reference's
// normalize_pto2_task_id_int): integers, integral floats (truncated) and
// decimal strings; anything else is "no id".
template <class Value>
std::optional<std::uint64_t> normalize_task_id(Value& v) {
    using simdjson::ondemand::json_type;
    json_type t{};
    if (v.type().get(t) != simdjson::SUCCESS) return std::nullopt;
    std::string why;
    if (t == json_type::number) {
        int128 x = 0;
        if (read_integer(v, x, why)) return static_cast<std::uint64_t>(x);
        double d = 0;
        if (v.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d) || std::fabs(d) >= 1.8e19) return std::nullopt;
        // Masked through the magnitude: |d| can pass INT64_MAX, where a cast to int64 is undefined.
        const auto magnitude = static_cast<std::uint64_t>(std::fabs(std::trunc(d)));
        return d < 0 ? std::uint64_t{0} - magnitude : magnitude;
    }
    if (t == json_type::boolean) {
        bool b = false;
        if (v.get_bool().get(b) != simdjson::SUCCESS) return std::nullopt;
        return b ? 1 : 0;
    }
    if (t == json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
        bool neg = false;
        if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
            neg = s.front() == '-';
            s.remove_prefix(1);
        }
        if (s.empty() || s.size() > 20) return std::nullopt;
        uint128 x = 0;
        for (const char c : s) {
            if (c < '0' || c > '9') return std::nullopt;
            x = x * 10 + static_cast<unsigned>(c - '0');
        }
        if (x > UINT64_MAX) return std::nullopt;
        const auto u = static_cast<std::uint64_t>(x);
        return neg ? static_cast<std::uint64_t>(0) - u : u;
    }
    return std::nullopt;
}

class deps_reader {
public:
    explicit deps_reader(const std::string& path, bool lenient = false) : js_(path), lenient_(lenient) {}

    void read(deps_graph& g) {
        if (js_.peek() != '{') js_.fail("expected a JSON object at the top level");
        js_.enter_object();
        std::string key;
        bool has_edges = false;
        while (js_.next_key(key)) {
            if (key == "edges") {
                has_edges = true;
                read_edges(g);
            } else if (key == "tasks") {
                read_tasks(g);
            } else {
                js_.skip();
            }
        }
        js_.expect_end();
        if (!has_edges && !lenient_) js_.fail("missing required member \"edges\" (an array of {pred, succ})");
    }

    std::vector<std::pair<deps_edge, std::uint32_t>> raw_edges;  // (edge, position in file)

private:
    // Strict reads fail here, at the element simdjson is in (mapped back to the file).
    [[noreturn]] void fail_in_batch(const std::string& what) {
        const char* loc = nullptr;
        const std::size_t content = batch_.size() >= 2 ? batch_.size() - 2 : 0;
        const std::uint64_t end = js_.offset();  // no scan-ahead here: the stream is at the batch's end
        if (doc_.current_location().get(loc) != simdjson::SUCCESS || loc <= batch_.data() ||
            loc > batch_.data() + content)
            js_.fail_at_byte(end, what);
        js_.fail_at_byte(end - content + static_cast<std::uint64_t>(loc - batch_.data() - 1), what);
    }
    template <class Value>
    std::optional<std::uint64_t> task_id_of(Value& v, std::string_view array, std::size_t index, std::string_view key) {
        if (lenient_) return normalize_task_id(v);
        std::uint64_t id = 0;
        if (!read_task_id(v, id, why_)) fail_in_batch(fmt::format("{}[{}].{}: {}", array, index, key, why_));
        return id;
    }

    void read_edges(deps_graph& g) {
        raw_edges.clear();
        g.edges_usable = js_.peek() == '[';
        if (!g.edges_usable) {
            if (!lenient_) js_.fail(fmt::format("edges: expected an array, found {}", js_.peek_kind()));
            js_.skip();
            return;
        }
        js_.enter_array();
        std::uint32_t seq = 0;
        for_each_item([&](simdjson::ondemand::value& edge, std::size_t index) {
            simdjson::ondemand::object obj;
            if (edge.get_object().get(obj) != simdjson::SUCCESS) {
                if (!lenient_) fail_in_batch(fmt::format("edges[{}]: expected an object {{pred, succ}}", index));
                return;  // leniently, non-object edges are ignored
            }
            std::optional<std::uint64_t> pred, succ;
            for (auto field : obj) {
                std::string_view k;
                if (field.unescaped_key().get(k) != simdjson::SUCCESS) js_.fail("edges: invalid key");
                simdjson::ondemand::value v;
                if (field.value().get(v) != simdjson::SUCCESS) js_.fail("edges: invalid JSON");
                if (k == "pred" || k == "succ") {
                    if ((k == "pred" ? pred : succ) && !lenient_)
                        fail_in_batch(fmt::format("edges[{}]: duplicate key \"{}\"", index, k));
                    (k == "pred" ? pred : succ) = task_id_of(v, "edges", index, k);
                }
            }
            if (!lenient_ && (!pred || !succ))
                fail_in_batch(fmt::format("edges[{}]: missing required member \"{}\"", index, pred ? "succ" : "pred"));
            if (pred && succ) {
                if (seq == UINT32_MAX) js_.fail("too many edges");
                raw_edges.push_back({deps_edge{*pred, *succ}, seq++});
            }
        });
    }

    // Calls f(value, index) for every element of the array the stream is in,
    // parsing them in batches (one simdjson document per batch).
    template <class F>
    void for_each_item(F&& f) {
        std::size_t index = 0;
        simdjson::padded_string_view batch;
        while (js_.capture_batch(std::size_t{256} << 10, batch) != 0) {
            batch_ = std::string_view(batch);
            if (parser_.iterate(batch).get(doc_) != simdjson::SUCCESS) js_.fail("invalid JSON");
            simdjson::ondemand::array arr;
            if (doc_.get_array().get(arr) != simdjson::SUCCESS) js_.fail("invalid JSON");
            for (auto el : arr) {
                simdjson::ondemand::value v;
                if (el.get(v) != simdjson::SUCCESS) js_.fail("invalid JSON");
                f(v, index++);
            }
        }
    }

    void read_tasks(deps_graph& g) {
        g.kernels.clear();
        g.blocks.clear();
        if (js_.peek() != '[') {
            if (!lenient_) js_.fail(fmt::format("tasks: expected an array, found {}", js_.peek_kind()));
            js_.skip();
            return;
        }
        js_.enter_array();
        for_each_item([&](simdjson::ondemand::value& task_value, std::size_t index) {
            simdjson::ondemand::object obj;
            if (task_value.get_object().get(obj) != simdjson::SUCCESS) {
                if (!lenient_) fail_in_batch(fmt::format("tasks[{}]: expected an object", index));
                return;  // leniently, non-object tasks are ignored
            }
            std::optional<std::uint64_t> id;
            std::int64_t kids[3] = {-1, -1, -1};
            bool have_kids = false;
            std::int64_t block_num = 1;
            for (auto field : obj) {
                std::string_view k;
                if (field.unescaped_key().get(k) != simdjson::SUCCESS) js_.fail("tasks: invalid key");
                simdjson::ondemand::value v;
                if (field.value().get(v) != simdjson::SUCCESS) js_.fail("tasks: invalid JSON");
                if (k == "task_id") {
                    id = task_id_of(v, "tasks", index, "task_id");
                } else if (k == "kernel_ids") {
                    have_kids = read_kernel_ids(v, kids, index);
                    if (!have_kids && !lenient_)
                        fail_in_batch(fmt::format("tasks[{}].kernel_ids: expected an array of 3 integers", index));
                } else if (k == "block_num") {
                    // int(block_num), falling back to 1 when it is not a number (leniently).
                    int128 b = 1;
                    if (!read_integer(v, b, why_)) {
                        if (!lenient_) fail_in_batch(fmt::format("tasks[{}].block_num: {}", index, why_));
                        b = 1;
                    }
                    if (b > INT64_MAX) b = INT64_MAX;
                    block_num = b < 1 ? 1 : static_cast<std::int64_t>(b);
                }
            }
            if (!id && !lenient_) fail_in_batch(fmt::format("tasks[{}]: missing required member \"task_id\"", index));
            if (id) {
                if (have_kids) g.kernels.push_back({*id, {kids[0], kids[1], kids[2]}});
                g.blocks.push_back({*id, block_num});
            }
        });
    }

    // kernel_ids counts only as a list of exactly three integers.
    template <class Value>
    bool read_kernel_ids(Value& v, std::int64_t (&out)[3], std::size_t index) {
        simdjson::ondemand::array arr;
        if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
        std::int64_t tmp[3] = {-1, -1, -1};
        std::size_t n = 0;
        for (auto el : arr) {
            simdjson::ondemand::value e;
            if (el.get(e) != simdjson::SUCCESS) js_.fail("tasks: invalid JSON");
            int128 x = 0;
            if (!read_integer(e, x, why_) || x > INT64_MAX || x < INT64_MIN) {
                js_.fail(fmt::format("tasks[{}].kernel_ids[{}]: {}", index, n,
                                     why_.empty() ? std::string("integer out of range") : why_));
            }
            if (n < 3) tmp[n] = static_cast<std::int64_t>(x);
            ++n;
        }
        if (n != 3) return false;
        std::copy(tmp, tmp + 3, out);
        return true;
    }

    json_stream js_;
    bool lenient_;
    simdjson::ondemand::parser parser_;
    simdjson::ondemand::document doc_;
    std::string_view batch_;  // the batch being parsed
    std::string why_;
};

// Dict semantics for the per-task maps: the last entry of an id wins.
template <class Entry>
void keep_last_per_id(std::vector<Entry>& v) {
    std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.task_id < b.task_id; });
    std::vector<Entry> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i + 1 < v.size() && v[i + 1].task_id == v[i].task_id) continue;
        out.push_back(v[i]);
    }
    v.swap(out);
}

inline void index_edges(deps_graph& g, std::vector<std::pair<deps_edge, std::uint32_t>>& raw) {
    // Unique (pred, succ), keeping the first occurrence.
    std::sort(raw.begin(), raw.end(), [](const auto& a, const auto& b) {
        if (a.first.pred != b.first.pred) return a.first.pred < b.first.pred;
        if (a.first.succ != b.first.succ) return a.first.succ < b.first.succ;
        return a.second < b.second;
    });
    std::vector<std::pair<deps_edge, std::uint32_t>> uniq;
    uniq.reserve(raw.size());
    for (const auto& e : raw) {
        if (!uniq.empty() && uniq.back().first.pred == e.first.pred && uniq.back().first.succ == e.first.succ) continue;
        uniq.push_back(e);
    }
    std::vector<std::pair<deps_edge, std::uint32_t>>().swap(raw);
    // Group rank = first position of the pred; order by (rank, position).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order;  // (rank, position) per uniq index
    order.reserve(uniq.size());
    for (std::size_t i = 0; i < uniq.size();) {
        std::size_t j = i;
        std::uint32_t rank = UINT32_MAX;
        while (j < uniq.size() && uniq[j].first.pred == uniq[i].first.pred) rank = std::min(rank, uniq[j++].second);
        for (; i < j; ++i) order.emplace_back(rank, uniq[i].second);
    }
    std::vector<std::uint32_t> idx(uniq.size());
    for (std::uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return order[a] < order[b]; });
    g.edges.clear();
    g.edges.reserve(uniq.size());
    for (const std::uint32_t i : idx) g.edges.push_back(uniq[i].first);

    g.by_pred.clear();
    for (std::uint32_t i = 0; i < g.edges.size();) {
        std::uint32_t j = i;
        while (j < g.edges.size() && g.edges[j].pred == g.edges[i].pred) ++j;
        g.by_pred.push_back({g.edges[i].pred, i, j - i});
        i = j;
    }
    std::sort(g.by_pred.begin(), g.by_pred.end(),
              [](const deps_graph::pred_run& a, const deps_graph::pred_run& b) { return a.pred < b.pred; });
    g.by_succ.resize(g.edges.size());
    for (std::uint32_t i = 0; i < g.by_succ.size(); ++i) g.by_succ[i] = i;
    std::stable_sort(g.by_succ.begin(), g.by_succ.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return g.edges[a].succ < g.edges[b].succ; });
}

}  // namespace detail

// How a deps.json problem is handled: the converter only warns (the trace is
// still useful without arrows); the scheduler-overhead analysis needs the DAG
// and fails.
enum class deps_policy { optional, required };

// Loads deps.json. A file that is there and invalid throws input_error,
// except leniently with deps_policy::optional (the converter, as the
// reference): then invalid JSON is a warning printed to `warnings` and leaves
// edges_usable false. A missing file is no deps with deps_policy::optional
// and an input_error with deps_policy::required; leniently and required, a
// missing `edges` key reads as no edges. A kernel_ids entry that is not
// integers is an error either way, as in the reference.
inline deps_graph load_deps_graph(const std::string& path, std::FILE* warnings = stderr,
                                  deps_policy policy = deps_policy::optional, bool lenient = false) {
    deps_graph g;
    std::error_code ec;
    // A symlink that does not resolve (dangling, a loop) is a deps.json that
    // is there and broken, not an absent one: reading it names the problem.
    std::error_code link_ec;
    g.file_exists = std::filesystem::exists(path, ec) || std::filesystem::is_symlink(path, link_ec);
    if (!g.file_exists) {
        if (policy == deps_policy::required) throw input_error(fmt::format("{}: no such file", path));
        return g;
    }
    detail::deps_reader reader(path, lenient);
    try {
        reader.read(g);
    } catch (const input_error& e) {
        const std::string_view msg = e.what();
        if (!lenient || policy == deps_policy::required || msg.find(".kernel_ids[") != std::string_view::npos) throw;
        if (warnings) fmt::print(warnings, "Warning: failed to read {}\n", msg);
        deps_graph unusable;
        unusable.file_exists = true;
        return unusable;
    }
    if (policy == deps_policy::required) {
        g.edges_usable = true;  // `edges` absent or not an array: no edges
    } else if (!g.edges_usable && warnings) {
        fmt::print(warnings, "Warning: {} has no 'edges' array\n", path);
    }
    detail::index_edges(g, reader.raw_edges);
    detail::keep_last_per_id(g.kernels);
    detail::keep_last_per_id(g.blocks);
    return g;
}

}  // namespace dfx::convert::swimlane
