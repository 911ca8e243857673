// critical_path_inputs: what `dfx critical-path` (critical_path.hpp) keeps of
// its inputs, in dense arrays indexed by task (first-seen order): the AICore
// slices and each task's span from the records file, the edges' endpoints and
// each task's first kernel id from deps.json, and the happens-before lists
// built from them.
//
//   detail::cp_records rec = detail::read_cp_records(records_path, lenient);
//   detail::cp_deps_sink deps;
//   read_deps(deps_path, deps, load);
//   const detail::cp_lists hb_pred = detail::happens_before(rec, deps.edges, tol);
//
// Why dense: the analysis used to key maps and sets by task id (a hash node
// or tree node per task and per edge) and to keep every record of both files;
// that was about 1 KB per task. This is about 150 bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"

namespace dfx::convert::deps::detail {

// One AICore row as the analysis uses it; its task as a dense index (the
// task's first-seen position: the reference's dict order).
struct cp_slice {
    std::int64_t start, end;
    std::uint32_t core;
    std::uint32_t task;
};

// What the analysis reads of a records file: the clock, the AICore slices and
// the tasks they name, in first-seen order, each with its first start and
// last end. Dense arrays, not maps keyed by id: at 10^7 tasks the maps were
// most of the command's 10+ GB.
struct cp_records {
    std::int64_t freq = 0;
    std::vector<cp_slice> slices;
    std::vector<std::uint64_t> id;         // per task
    std::vector<std::int64_t> start, end;  // per task: first start, last end
    id_index index;                        // task id -> dense index
};

// clock_freq_hz and the AICore slices of a records file, read by the
// swimlane's records_reader: the one reader of that file, so critical-path
// checks what swimlane checks (integer, non-negative cycle counts, UTF-8, the
// whole grammar, no repeated top-level key). Phases and AICPU rows are read
// and checked but not kept: nothing here uses them; each AICore row becomes
// its slice as it is read (records_reader::on_aicore_row), not kept whole.
inline cp_records read_cp_records(const std::string& path, bool lenient = false) {
    cp_records out;
    auto add_row = [&](const swimlane::aicore_row& r) {
        if (out.slices.size() >= id_index::npos - 1) throw input_error(path + ": too many aicore_tasks records");
        const auto start = static_cast<std::int64_t>(r.start), end = static_cast<std::int64_t>(r.end);
        const auto [t, inserted] = out.index.emplace(r.token, static_cast<std::uint32_t>(out.id.size()));
        if (inserted) {
            out.id.push_back(r.token);
            out.start.push_back(start);
            out.end.push_back(end);
        } else {
            out.start[t] = std::min(out.start[t], start);
            out.end[t] = std::max(out.end[t], end);
        }
        out.slices.push_back({start, end, r.core, t});
    };
    const swimlane::records_file rf = swimlane::records_reader(path)
                                          .lenient(lenient)
                                          .keep_phases(false)
                                          .keep_aicpu_rows(false)
                                          .on_aicore_row(add_row)
                                          .read();
    if (!rf.level || *rf.level < 1 || *rf.level > 4)
        throw input_error(path + ": chip_swimlane_level: expected 1, 2, 3 or 4" + (rf.level ? ", found " + to_decimal(*rf.level) : ": missing"));
    if (rf.meta.clock_freq_hz <= 0 || rf.meta.clock_freq_hz > INT64_MAX)
        throw input_error(path + ": metadata.clock_freq_hz missing or not positive");
    if (out.slices.empty()) throw input_error(path + ": no aicore_tasks records (empty or failed profiling run?)");
    out.freq = static_cast<std::int64_t>(rf.meta.clock_freq_hz);
    return out;
}

// A deps.json edge kept as happens-before: (succ, pred) as dense task
// indices and the edge's position in the file.
struct cp_kept_edge {
    std::uint32_t succ, pred, seq;
};

// What the analysis keeps of deps.json: of each edge, only whether it is a
// happens-before edge between two tasks that ran (their pred finished,
// within tol, before the succ started, and started strictly earlier), as
// it is read: the full (pred, succ) list, 16 bytes an edge, was the largest
// array at critical-path's peak. And per task entry its first active
// kernel id (the name of a path task). Read and checked by deps.json's one
// reader, as read_deps(path) reads it; the records must be read first.
class cp_deps_sink final : public deps_sink {
public:
    cp_deps_sink(const cp_records& rec, std::int64_t tol) : rec_(rec), tol_(tol) {}
    void edge(const edge_key& k, edge_detail&, edge_geometry&) override {
        if (seq_ >= UINT32_MAX - 1) throw input_error("deps.json: too many edges");
        const std::uint32_t e = seq_++;
        const std::uint32_t p = rec_.index.find(k.pred), s = rec_.index.find(k.succ);
        if (p == s || p == id_index::npos || s == id_index::npos) return;
        if (rec_.end[p] <= rec_.start[s] + tol_ && rec_.start[p] < rec_.start[s]) hb.push_back({s, p, e});
    }
    void task(task_entry& t, std::vector<task_arg>&) override {
        const auto active = std::find_if(t.slots.begin(), t.slots.end(), [](std::int64_t s) { return s >= 0; });
        kernels.emplace_back(t.id, active == t.slots.end() ? -1 : *active);
    }
    void tensor(tensor_entry&) override {}

    std::vector<cp_kept_edge> hb;                                 // happens-before edges, file order
    std::vector<std::pair<std::uint64_t, std::int64_t>> kernels;  // (task id, first kernel id >= 0 or -1), file order

private:
    const cp_records& rec_;
    std::int64_t tol_;
    std::uint32_t seq_ = 0;
};

// A list per task in CSR form: items[begin[t] .. begin[t + 1]).
struct cp_lists {
    std::vector<std::uint32_t> begin, items;
    [[nodiscard]] const std::uint32_t* first(std::uint32_t t) const { return items.data() + begin[t]; }
    [[nodiscard]] const std::uint32_t* last(std::uint32_t t) const { return items.data() + begin[t + 1]; }
};

// The happens-before predecessors of each task: the unique kept edges
// (first occurrence), per succ in file order. Consumes `hb`.
inline cp_lists happens_before(const cp_records& rec, std::vector<cp_kept_edge>& hb) {
    using kept = cp_kept_edge;
    std::sort(hb.begin(), hb.end(), [](const kept& a, const kept& b) {
        return std::tie(a.succ, a.pred, a.seq) < std::tie(b.succ, b.pred, b.seq);
    });
    hb.erase(std::unique(hb.begin(), hb.end(), [](const kept& a, const kept& b) { return a.succ == b.succ && a.pred == b.pred; }),
             hb.end());
    std::sort(hb.begin(), hb.end(), [](const kept& a, const kept& b) { return std::tie(a.succ, a.seq) < std::tie(b.succ, b.seq); });
    cp_lists out;
    out.begin.assign(rec.id.size() + 1, 0);
    for (const kept& k : hb) ++out.begin[k.succ + 1];
    for (std::size_t t = 0; t < rec.id.size(); ++t) out.begin[t + 1] += out.begin[t];
    out.items.reserve(hb.size());
    for (const kept& k : hb) out.items.push_back(k.pred);
    std::vector<kept>().swap(hb);
    return out;
}

}  // namespace dfx::convert::deps::detail
