// The host-side replay of a dep_gen capture into the dependency graph
// deps.json describes (spec dep-gen.md §1.8): the tasks in submit order, the
// tensors in first-seen order, and the edges the runtime wired, each with the
// reason it exists.
//
// The device never records edges, only what each submit was given; the edges
// are recomputed here the way the runtime's fan-in computation does it, in the
// same order, against a tensormap that never retires anything:
//
//   STEP 1  explicit deps, in declaration order;
//   then, unless the task is in a manual scope, per argument in index order
//   STEP A  the creator of the argument's buffer (owner_task_id);
//   STEP B  for INPUT/INOUT without manual_dep, every tensormap entry the
//           argument may depend on, newest first; an INOUT that covers an
//           entry removes it, since later readers depend on the INOUT instead;
//   STEP 4  INOUT/OUTPUT_EXISTING arguments without manual_dep become
//           tensormap entries for later submits.
//
// Explicit and creator edges appear at most once per (producer, consumer);
// tensormap edges are never suppressed (one per matched slice) but do count
// as "seen" for later explicit/creator suppression.
//
// The reference also runs the runtime's own fan-in code as an oracle and
// compares; there is a single implementation here, so that check has no
// counterpart. What is checked is the record stream (dep_gen_stream.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "dfx/output/dep_gen_stream.hpp"
#include "dfx/output/replay_tensormap.hpp"
#include "dfx/output/tensor_id.hpp"
#include "dfx/output/tensor_overlap.hpp"
#include "dfx/output/u64_index.hpp"
#include "dfx/record/dep_gen_records.hpp"
#include "dfx/record/tensor_view.hpp"

namespace dfx {

// Which part of the runtime's fan-in computation produced an edge.
enum class dep_edge_source : std::uint8_t { explicit_dep, creator, tensormap };

// DepFlags: what the consumer holds on the producer.
inline constexpr std::uint8_t dep_wait = 1u << 0;    // waits for it to complete
inline constexpr std::uint8_t dep_retain = 1u << 1;  // keeps its output alive

// A strided slice as deps.json writes it: shape and strides have ndims
// elements, offsets and strides in elements.
struct slice_geometry {
    std::uint8_t dtype = 0;
    std::uint8_t ndims = 0;
    std::uint64_t start_offset = 0;
    std::uint32_t shape[max_tensor_dims] = {};
    std::uint32_t strides[max_tensor_dims] = {};

    static constexpr slice_geometry of(const tensor_view& v) noexcept {
        slice_geometry g;
        g.dtype = v.dtype;
        g.ndims = v.ndims;
        g.start_offset = v.start_offset;
        for (int d = 0; d < v.ndims && d < max_tensor_dims; ++d) {
            g.shape[d] = v.shape[d];
            g.strides[d] = v.strides[d];
        }
        return g;
    }

    static constexpr slice_geometry of(const produced_slice& s) noexcept {
        slice_geometry g;
        g.dtype = s.dtype;
        g.ndims = s.ndims;
        g.start_offset = s.start_offset;
        for (int d = 0; d < s.ndims; ++d) {
            g.shape[d] = s.shape[d];
            g.strides[d] = s.strides[d];
        }
        return g;
    }
};

struct dep_arg {
    std::uint8_t idx = 0;
    arg_type type = arg_type::input;
    std::uint64_t tensor_id = 0;  // these two only when type != output:
    slice_geometry slice;         // an OUTPUT has no buffer at submit time

    bool has_tensor() const noexcept { return type != arg_type::output; }
};

struct dep_task {
    std::uint64_t task_id = 0;
    bool manual_scope = false;
    bool early_dispatch = false;
    std::int32_t kernel_ids[3] = {-1, -1, -1};  // {aic, aiv0, aiv1}; all -1 = a dummy task
    std::uint32_t block_num = 1;                // never 0: a stored 0 means 1
    std::vector<dep_arg> args;
};

// One (buffer, version), whatever slice of it was seen first.
struct dep_tensor {
    std::uint64_t tensor_id = 0;
    std::uint64_t buffer_addr = 0;
    std::int32_t version = 0;
    std::uint8_t dtype = 0;
    std::uint64_t buffer_numel = 0;  // whole buffer, in elements; 0 if size 0 or unknown dtype
};

struct dep_edge {
    std::uint64_t pred = 0;
    std::uint64_t succ = 0;
    std::int32_t arg = -1;  // consumer argument; -1 for explicit
    dep_edge_source source = dep_edge_source::explicit_dep;
    std::uint8_t flags = dep_wait | dep_retain;
    tensor_overlap overlap = tensor_overlap::other;  // tensormap only
    std::uint64_t tensor_id = 0;                     // creator and tensormap
    slice_geometry consumer;                         // creator and tensormap
    slice_geometry producer;                         // tensormap only (its dtype is not written)
};

struct dep_graph {
    std::vector<dep_task> tasks;
    std::vector<dep_tensor> tensors;
    std::vector<dep_edge> edges;
};

// A task's fields, without its arguments (which the replay hands over as
// the submit's arguments: dep_arg_of makes each one's dep_arg).
struct dep_task_head {
    std::uint64_t task_id = 0;
    bool manual_scope = false;
    bool early_dispatch = false;
    std::int32_t kernel_ids[3] = {-1, -1, -1};
    std::uint32_t block_num = 1;
};

inline dep_arg dep_arg_of(const dep_gen_tensor_part& part) noexcept {
    dep_arg a;
    a.idx = part.index;
    a.type = part.type;
    if (a.has_tensor()) {
        a.tensor_id = tensor_id_of(part.view.addr, part.view.version);
        a.slice = slice_geometry::of(part.view);
    }
    return a;
}

// Where the replay puts what it finds, in the order it finds it: tasks in
// submit order, tensors in first-seen order, edges in wiring order. Plain
// function pointers, not a template on the consumer, so the replay is
// compiled once whether it builds a dep_graph (replay_dep_gen) or writes
// deps.json as it goes (write_deps_json_file), and a host translation unit
// that only writes the file compiles no vector of tasks, tensors or edges.
struct dep_graph_sink {
    void* context;
    void (*task)(void* context, const dep_task_head& head, std::span<const dep_gen_tensor_part> args);
    void (*tensor)(void* context, const dep_tensor& tensor);
    void (*edge)(void* context, const dep_edge& edge);
};

namespace detail {

class dep_graph_builder {
public:
    explicit dep_graph_builder(dep_graph_sink sink) : sink_(sink) {}

    void add(const dep_gen_submit& s) {
        const bool manual = (s.task.flags & dep_gen_in_manual_scope) != 0;
        add_task(s, manual);

        // Producers this consumer already has an edge from (by any source).
        seen_.clear();
        for (const std::uint64_t producer : s.explicit_deps) {
            if (!seen_.insert(producer).second) continue;
            dep_edge e;
            e.pred = producer;
            e.succ = s.task_id;
            e.source = dep_edge_source::explicit_dep;
            e.flags = dep_wait | dep_retain;
            sink_.edge(sink_.context, e);
        }
        if (manual) return;  // a manual scope wires its own dependencies

        for (const dep_gen_tensor_part& arg : s.tensors) {
            if (arg.type == arg_type::output) continue;
            const tensor_view& view = arg.view;
            if (view.owner_task_id != no_task && seen_.insert(view.owner_task_id).second) {
                dep_edge e;
                e.pred = view.owner_task_id;
                e.succ = s.task_id;
                e.arg = arg.index;
                e.source = dep_edge_source::creator;
                e.flags = dep_wait | dep_retain;
                e.tensor_id = tensor_id_of(view.addr, view.version);
                e.consumer = slice_geometry::of(view);
                sink_.edge(sink_.context, e);
            }
            if ((arg.type != arg_type::input && arg.type != arg_type::inout) || view.manual_dep) continue;
            tensormap_.lookup(view, [&](const produced_slice& entry, tensor_overlap overlap) {
                seen_.insert(entry.producer);
                dep_edge e;
                e.pred = entry.producer;
                e.succ = s.task_id;
                e.arg = arg.index;
                e.source = dep_edge_source::tensormap;
                e.flags = dep_wait;
                e.overlap = overlap;
                e.tensor_id = tensor_id_of(entry.addr, entry.version);
                e.consumer = slice_geometry::of(view);
                e.producer = slice_geometry::of(entry);
                sink_.edge(sink_.context, e);
                return arg.type == arg_type::inout && overlap == tensor_overlap::covered
                           ? replay_tensormap::after_hit::remove
                           : replay_tensormap::after_hit::keep;
            });
        }

        // STEP 4 runs after every lookup of this submit, so a task never
        // depends on its own outputs.
        for (const dep_gen_tensor_part& arg : s.tensors)
            if ((arg.type == arg_type::inout || arg.type == arg_type::output_existing) && !arg.view.manual_dep)
                tensormap_.insert(arg.view, s.task_id);
    }

private:
    void add_task(const dep_gen_submit& s, bool manual) {
        dep_task_head t;
        t.task_id = s.task_id;
        t.manual_scope = manual;
        t.early_dispatch = (s.task.flags & dep_gen_early_dispatch) != 0;
        for (int k = 0; k < 3; ++k) t.kernel_ids[k] = s.task.kernel_ids[k];
        t.block_num = s.task.block_num > 0 ? s.task.block_num : 1;
        sink_.task(sink_.context, t, s.tensors);
        for (const dep_gen_tensor_part& part : s.tensors)
            if (part.type != arg_type::output) register_tensor(part.view);
    }

    void register_tensor(const tensor_view& v) {
        const std::uint64_t id = tensor_id_of(v.addr, v.version);
        if (!tensor_ids_.insert(id).second) return;  // the first sighting describes it
        const std::uint64_t elem = dtype_size(v.dtype);
        sink_.tensor(sink_.context, {id, v.addr, v.version, v.dtype, elem == 0 ? 0 : v.size / elem});
    }

    dep_graph_sink sink_;
    replay_tensormap tensormap_;
    u64_index tensor_ids_;
    u64_index seen_;
};

// The sink that collects a dep_graph.
inline dep_graph_sink graph_sink(dep_graph& g) {
    return {&g,
            [](void* c, const dep_task_head& h, std::span<const dep_gen_tensor_part> parts) {
                dep_task t;
                t.task_id = h.task_id;
                t.manual_scope = h.manual_scope;
                t.early_dispatch = h.early_dispatch;
                for (int k = 0; k < 3; ++k) t.kernel_ids[k] = h.kernel_ids[k];
                t.block_num = h.block_num;
                t.args.reserve(parts.size());
                for (const dep_gen_tensor_part& p : parts) t.args.push_back(dep_arg_of(p));
                static_cast<dep_graph*>(c)->tasks.push_back(std::move(t));
            },
            [](void* c, const dep_tensor& t) { static_cast<dep_graph*>(c)->tensors.push_back(t); },
            [](void* c, const dep_edge& e) { static_cast<dep_graph*>(c)->edges.push_back(e); }};
}

}  // namespace detail

inline dep_graph replay_dep_gen(std::span<const dep_gen_submit> submits) {
    dep_graph g;
    detail::dep_graph_builder builder(detail::graph_sink(g));
    for (const dep_gen_submit& s : submits) builder.add(s);
    return g;
}

// Replays a record stream into `sink` as each submit is read. Throws
// output_error if the stream is malformed (dep_gen_stream.hpp); a defect
// found later still throws, after the sink has seen the earlier submits.
inline void replay_dep_gen(std::span<const std::byte> stream, dep_graph_sink sink) {
    detail::dep_graph_builder builder(sink);
    detail::read_dep_gen_stream(
        stream, [](void* b, dep_gen_submit& s) { static_cast<detail::dep_graph_builder*>(b)->add(s); }, &builder);
}

// Throws output_error if the stream is malformed (dep_gen_stream.hpp); the
// half-built graph is dropped.
inline dep_graph replay_dep_gen(std::span<const std::byte> stream) {
    dep_graph g;
    replay_dep_gen(stream, detail::graph_sink(g));
    return g;
}

}  // namespace dfx
