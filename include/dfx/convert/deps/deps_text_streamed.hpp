// deps_text_streamed: the text view of the full graph (`dfx deps`, edge
// mode full) in bounded memory, for runs of 10^7 tasks and more.
//
//   text_spill spill;                                   // a deps_sink
//   const deps_read_summary r = read_deps(path, spill, load);
//   auto sidecar = read_perf_sidecar_ids_sorted(records_path, lenient, budget);
//   text_view_files view(spill, names, &sidecar);
//   write_deps_text(out, view.summary, view.fmt, path, view);  // view: the node source
//
// The graph is never held. deps.json's edges and tasks go to external
// sorters as they are read (external_sort.hpp), each edge twice, by (pred,
// succ) and by (succ, pred). After the read, merges of the sorted streams
// write three files in node order: the unique out-edges, the unique
// in-edges, and one row per node with its label and fan counts. The nodes
// are those finish_graph_lean (deps_graph.hpp) finds: every edge endpoint,
// every task in the sidecar, every task with kernel ids, a repeated task id
// keeping its last entry. The view is then written from two sequential
// walks over the files. Memory is the sorters' budget (`budget_bytes`, a
// quarter each to the two edge orders and the tasks, an eighth to the
// tensor ids), the files' (`file_memory_bytes` each, before they go to
// disk) and the chunks the walks hand out, whatever the number of tasks;
// the sidecar's ids come sorted the same way (read_perf_sidecar_ids_sorted,
// perf_sidecar.hpp). The output is byte for byte
// write_deps_text(out, graph, selection, path)'s (the tests compare them).
// The reduced modes need the graph in memory (edge_modes.hpp): they keep
// that path.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dfx/convert/common/delta_varint.hpp"
#include "dfx/convert/common/external_sort.hpp"
#include "dfx/convert/common/spill_file.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/deps/task_id.hpp"

namespace dfx::convert::deps {

namespace detail {

// An edge as (this node, its peer): (pred, succ) or (succ, pred).
struct id_pair {
    std::uint64_t node = 0, peer = 0;
    friend auto operator<=>(const id_pair&, const id_pair&) = default;
    static constexpr std::size_t radix_words = 2;  // (external_sort.hpp)
    std::uint64_t radix_word(std::size_t i) const { return i == 0 ? node : peer; }
};

// A task entry as the text view reads it; `seq` is its place in the file,
// so that the last entry of a repeated id sorts last.
struct spilled_task {
    std::uint64_t id = 0, seq = 0;
    std::array<std::int64_t, 3> slots{-1, -1, -1};
    std::int64_t block_num = 1;
    bool has_kernel() const { return slots[0] >= 0 || slots[1] >= 0 || slots[2] >= 0; }
    friend bool operator<(const spilled_task& a, const spilled_task& b) {
        return a.id != b.id ? a.id < b.id : a.seq < b.seq;
    }
    static constexpr std::size_t radix_words = 2;
    std::uint64_t radix_word(std::size_t i) const { return i == 0 ? id : seq; }
};

// One node of the view: its label and fan counts.
struct node_row {
    text_node node;
    std::uint32_t fanin = 0, fanout = 0;
};

// The codecs of the spilled records: differences from the record before,
// as varints (delta_varint.hpp). Sorted by node, an edge takes 2-3 bytes
// instead of 16, a task or node row 7-10 instead of 48 or 64: at 10^7
// tasks the spill files held 0.24 GB at most, where raw records would be
// some 2.4.
inline void put_signed(std::uint8_t*& w, std::int64_t v) { put_varint(w, zigzag(static_cast<std::uint64_t>(v))); }
inline std::int64_t get_signed(const std::uint8_t*& r) { return static_cast<std::int64_t>(unzigzag(get_varint(r))); }

struct id_pair_codec {
    static constexpr std::size_t max_bytes = 2 * varint_max_bytes;
    static void put(std::uint8_t*& w, const id_pair& prev, const id_pair& x) {
        put_varint(w, zigzag(x.node - prev.node));
        put_varint(w, zigzag(x.peer - x.node));  // (peers are near: edges are local)
    }
    static id_pair get(const std::uint8_t*& r, const id_pair& prev) {
        id_pair x;
        x.node = prev.node + unzigzag(get_varint(r));
        x.peer = x.node + unzigzag(get_varint(r));
        return x;
    }
};

struct spilled_task_codec {
    static constexpr std::size_t max_bytes = 6 * varint_max_bytes;
    static void put(std::uint8_t*& w, const spilled_task& prev, const spilled_task& x) {
        put_varint(w, zigzag(x.id - prev.id));
        put_varint(w, zigzag(x.seq - prev.seq));
        for (std::int64_t s : x.slots) put_signed(w, s);
        put_signed(w, x.block_num);
    }
    static spilled_task get(const std::uint8_t*& r, const spilled_task& prev) {
        spilled_task x;
        x.id = prev.id + unzigzag(get_varint(r));
        x.seq = prev.seq + unzigzag(get_varint(r));
        for (std::int64_t& s : x.slots) s = get_signed(r);
        x.block_num = get_signed(r);
        return x;
    }
};

struct node_row_codec {
    static constexpr std::size_t max_bytes = 7 * varint_max_bytes + 1;
    static void put(std::uint8_t*& w, const node_row& prev, const node_row& x) {
        put_varint(w, zigzag(x.node.id - prev.node.id));
        *w++ = static_cast<std::uint8_t>(static_cast<unsigned>(x.node.kind) | (x.node.kernel_ids ? 4u : 0u));
        put_varint(w, x.fanin);
        put_varint(w, x.fanout);
        for (std::int64_t s : x.node.slots) put_signed(w, s);
        put_signed(w, x.node.block_num);
    }
    static node_row get(const std::uint8_t*& r, const node_row& prev) {
        node_row x;
        x.node.id = prev.node.id + unzigzag(get_varint(r));
        const std::uint8_t flags = *r++;
        x.node.kind = static_cast<task_kind>(flags & 3u);
        x.node.kernel_ids = (flags & 4u) != 0;
        x.fanin = static_cast<std::uint32_t>(get_varint(r));
        x.fanout = static_cast<std::uint32_t>(get_varint(r));
        for (std::int64_t& s : x.node.slots) s = get_signed(r);
        x.node.block_num = get_signed(r);
        return x;
    }
};

}  // namespace detail

// The deps_sink of the streamed text view: spills what the view reads.
class text_spill final : public deps_sink {
public:
    static constexpr std::size_t default_budget = std::size_t{256} << 20;

    explicit text_spill(std::size_t budget_bytes = default_budget)
        : by_pred_(budget_bytes / 4), by_succ_(budget_bytes / 4), tasks_(budget_bytes / 4), tensors_(budget_bytes / 8) {}

    void edge(const edge_key& k, edge_detail&, edge_geometry&) override {
        by_pred_.push({k.pred, k.succ});
        by_succ_.push({k.succ, k.pred});
    }
    void task(task_entry& t, std::vector<task_arg>&) override {
        tasks_.push({t.id, tasks_.size(), t.slots, t.block_num});
    }
    void tensor(tensor_entry& t) override { tensors_.push(t.id); }

private:
    friend class text_view_files;
    using edge_sorter = external_sorter<detail::id_pair, std::less<detail::id_pair>, detail::id_pair_codec>;
    edge_sorter by_pred_, by_succ_;
    external_sorter<detail::spilled_task, std::less<detail::spilled_task>, detail::spilled_task_codec> tasks_;
    external_sorter<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> tensors_;
};

// The files the text view is written from, built from a finished spill.
class text_view_files {
public:
    text_summary summary;
    task_formatter fmt;

    // `sidecar`: the tasks of the records beside deps.json, sorted, repeats
    // allowed (read_perf_sidecar_ids_sorted); null: no sidecar. Each of the
    // three files is held in memory up to `file_memory_bytes`, coded.
    text_view_files(text_spill& spill, const name_map& names, sidecar_task_ids* sidecar,
                    std::size_t file_memory_bytes = std::size_t{8} << 20)
        : out_edges_(file_memory_bytes), in_edges_(file_memory_bytes), nodes_(file_memory_bytes) {
        // The two edge orders and the tasks are finished on two threads.
        summary.annotated_edges = spill.by_pred_.size();
        std::optional<sorted_records<detail::spilled_task, std::less<detail::spilled_task>, detail::spilled_task_codec>> sorted_tasks;
        {
            std::exception_ptr helper_error;
            std::thread helper([&] {
                try {
                    unique_into(std::move(spill.by_succ_).finish(), in_edges_);
                    sorted_tasks.emplace(std::move(spill.tasks_).finish());
                } catch (...) {
                    helper_error = std::current_exception();
                }
            });
            struct joined {
                std::thread& t;
                ~joined() {
                    if (t.joinable()) t.join();
                }
            } join_helper{helper};
            summary.unique_edges = unique_into(std::move(spill.by_pred_).finish(), out_edges_);
            summary.tensors = distinct(std::move(spill.tensors_).finish());
            helper.join();
            if (helper_error) std::rethrow_exception(helper_error);
        }

        // As finish_graph_lean: metadata from the sidecar, then from tasks with kernel ids.
        const std::string* sidecar_name = names.nonempty ? names.find(-1) : nullptr;
        summary.perf_sidecar = sidecar && sidecar->size() > 0;
        summary.func_name_map = summary.perf_sidecar && sidecar_name && !sidecar_name->empty();
        bool pairs = false;

        auto& tasks = *sorted_tasks;
        const detail::spilled_task* next_task = tasks.next();
        auto out = out_edges_.read();
        auto in = in_edges_.read();
        const detail::id_pair* out_at = out.next();
        const detail::id_pair* in_at = in.next();
        const std::uint64_t* sidecar_at = sidecar ? sidecar->next() : nullptr;
        for (;;) {
            std::uint64_t id = UINT64_MAX;
            bool any = false;
            auto consider = [&](bool there, std::uint64_t x) {
                if (there && (!any || x < id)) id = x, any = true;
            };
            consider(out_at, out_at ? out_at->node : 0);
            consider(in_at, in_at ? in_at->node : 0);
            consider(next_task, next_task ? next_task->id : 0);
            consider(sidecar_at, sidecar_at ? *sidecar_at : 0);
            if (!any) break;

            detail::node_row row;
            row.node.id = id;
            for (; out_at && out_at->node == id; out_at = out.next()) ++row.fanout;
            for (; in_at && in_at->node == id; in_at = in.next()) ++row.fanin;
            std::optional<detail::spilled_task> task;  // the last entry of the id wins
            for (; next_task && next_task->id == id; next_task = tasks.next()) task = *next_task;
            bool in_sidecar = false;
            for (; sidecar_at && *sidecar_at == id; sidecar_at = sidecar->next()) in_sidecar = true;
            const bool kernel = task && task->has_kernel();
            if (row.fanin == 0 && row.fanout == 0 && !in_sidecar && !kernel) continue;  // a dummy task alone

            if (task) {
                row.node.kind = kernel ? task_kind::submit : task_kind::dummy;
                row.node.kernel_ids = kernel;
                row.node.slots = task->slots;
                row.node.block_num = task->block_num;
            }
            if (kernel) {
                summary.perf_sidecar = true;
                if (!summary.func_name_map && names.nonempty)
                    summary.func_name_map = !detail::kernel_func_name(names, task->slots).empty();
            }
            pairs = pairs || ring_of(id) != 0;
            nodes_.push(row);
        }
        summary.tasks = nodes_.size();
        fmt = task_formatter(pairs);
    }

    // The node source of write_deps_text (deps_text.hpp): the files read
    // from their start, the edge files only when `peers`.
    void rewind(bool peers) {
        nodes_at_.emplace(nodes_.read());
        out_at_.reset();
        in_at_.reset();
        out_next_ = in_next_ = nullptr;
        if (!peers) return;
        out_at_.emplace(out_edges_.read());
        in_at_.emplace(in_edges_.read());
        out_next_ = out_at_->next();
        in_next_ = in_at_->next();
    }
    void read(std::size_t count, text_batch& b) {
        for (; count > 0; --count) {
            const detail::node_row* r = nodes_at_->next();
            if (!r) return;
            b.nodes.push_back(r->node);
            for (; in_next_ && in_next_->node == r->node.id; in_next_ = in_at_->next()) b.preds.push_back(in_next_->peer);
            for (; out_next_ && out_next_->node == r->node.id; out_next_ = out_at_->next()) b.succs.push_back(out_next_->peer);
            b.close_node(r->fanin, r->fanout);
        }
    }

private:
    // Writes the distinct pairs of a sorted stream; returns how many.
    using edge_file = spilled_records<detail::id_pair, detail::id_pair_codec>;
    static std::size_t unique_into(sorted_records<detail::id_pair, std::less<detail::id_pair>, detail::id_pair_codec> sorted,
                                   edge_file& into) {
        std::optional<detail::id_pair> last;
        while (const detail::id_pair* p = sorted.next()) {
            if (last && *last == *p) continue;
            into.push(*p);
            last = *p;
        }
        return static_cast<std::size_t>(into.size());
    }
    static std::size_t distinct(sorted_records<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> sorted) {
        std::size_t n = 0;
        std::optional<std::uint64_t> last;
        while (const std::uint64_t* x = sorted.next()) {
            n += !last || *last != *x;
            last = *x;
        }
        return n;
    }

    using node_file = spilled_records<detail::node_row, detail::node_row_codec>;
    edge_file out_edges_, in_edges_;
    node_file nodes_;
    // Where a walk is (rewind / read).
    std::optional<spill_reader<detail::node_row, detail::node_row_codec>> nodes_at_;
    std::optional<spill_reader<detail::id_pair, detail::id_pair_codec>> out_at_, in_at_;
    const detail::id_pair* out_next_ = nullptr;
    const detail::id_pair* in_next_ = nullptr;
};

}  // namespace dfx::convert::deps
