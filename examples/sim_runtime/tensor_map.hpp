// Buffers, tensors (2-D windows into buffers) and the tensor map that infers
// a submit's dependencies from what earlier submits wrote.
//
// The inference follows the runtime's fan-in computation (the same rules the
// dep_gen replay applies, include/dfx/output/deps_replay.hpp), so the graph
// the chip schedules with is the graph deps.json describes:
//   1. explicit deps, in declaration order (one edge per producer);
//   2. per argument, the creator of its buffer (a runtime-allocated OUTPUT of
//      an earlier task), unless that producer already has an edge;
//   3. INPUT / INOUT arguments: every earlier INOUT / OUTPUT_EXISTING write
//      into the same buffer that overlaps it, newest first, one edge per
//      write; an INOUT that covers a write replaces it in the map;
//   4. then this submit's INOUT / OUTPUT_EXISTING writes enter the map.
// Arguments marked manual_dep take no part in 3 and 4.
//
// Unlike a device tensor map this one never forgets a write when its
// producer retires: it is the logical graph. The chip wires only the edges
// whose producer is still alive (chip.hpp).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dfx/record/tensor_view.hpp"
#include "kernels.hpp"

namespace sim {

inline constexpr std::uint64_t no_task = dfx::no_task;

// A whole buffer in the chip's memory: an external (GM) buffer the workload
// allocated, or an output the runtime allocated from a ring's heap at submit.
struct buffer {
    std::uint64_t addr = 0;  // simulated device address: stable across runs, so deps.json is too
    float* data = nullptr;
    std::uint32_t rows = 0;
    std::uint32_t cols = 0;
    std::uint64_t owner = no_task;  // the task that created it; no_task for external buffers

    std::uint64_t bytes() const { return std::uint64_t{rows} * cols * sizeof(float); }
};

// A rectangular window [row0, row0 + rows) x [col0, col0 + cols) of a buffer.
struct tensor {
    const buffer* buf = nullptr;
    std::uint32_t row0 = 0, col0 = 0, rows = 0, cols = 0;
    bool manual_dep = false;  // invisible to the tensor map: order it with explicit deps

    static tensor whole(const buffer& b) { return {&b, 0, 0, b.rows, b.cols, false}; }

    tensor slice(std::uint32_t r0, std::uint32_t c0, std::uint32_t nrows, std::uint32_t ncols) const {
        return {buf, row0 + r0, col0 + c0, nrows, ncols, manual_dep};
    }
    tensor row_block(std::uint32_t r0, std::uint32_t nrows) const { return slice(r0, 0, nrows, cols); }
    tensor manual() const {
        tensor t = *this;
        t.manual_dep = true;
        return t;
    }

    std::uint64_t offset() const { return std::uint64_t{row0} * buf->cols + col0; }
    matrix_ref ref() const { return {buf->data + offset(), rows, cols, buf->cols}; }

    // As dep_gen records it. A window of whole rows is contiguous; any other
    // is described by its strides and the elements it spans.
    dfx::tensor_view view() const { return view_at(buf->addr); }

    // The same view with the buffer's host address: what the args dump reads
    // the bytes from (it runs on the AICPU, which here is the host).
    dfx::tensor_view host_view() const { return view_at(reinterpret_cast<std::uintptr_t>(buf->data)); }

private:
    dfx::tensor_view view_at(std::uint64_t addr) const {
        dfx::tensor_view v;
        v.addr = addr;
        v.size = buf->bytes();
        v.owner_task_id = buf->owner;
        v.start_offset = offset();
        v.contiguous = cols == buf->cols;
        v.extent = std::uint64_t{rows - 1} * buf->cols + cols;
        v.version = 0;
        v.ndims = 2;
        v.dtype = static_cast<std::uint8_t>(dfx::dtype::float32);
        v.manual_dep = manual_dep;
        v.shape[0] = rows;
        v.shape[1] = cols;
        v.strides[0] = buf->cols;
        v.strides[1] = 1;
        return v;
    }
};

enum class edge_source : std::uint8_t { explicit_dep, creator, tensormap };

inline const char* edge_source_name(edge_source s) {
    switch (s) {
        case edge_source::explicit_dep: return "explicit";
        case edge_source::creator: return "creator";
        case edge_source::tensormap: return "tensormap";
    }
    return "unknown";
}

// One inferred dependency of a submit: its producer and why.
struct inferred_edge {
    std::uint64_t pred = 0;
    edge_source source = edge_source::explicit_dep;
    int arg = -1;  // the consumer's argument; -1 for explicit deps
};

struct submit_arg_ref {
    dfx::arg_type type;
    const tensor* t;  // for OUTPUT: the buffer the runtime just allocated
};

class tensor_map {
public:
    // Steps 1-4 above for one submit; returns its edges in inference order.
    std::vector<inferred_edge> infer(std::uint64_t task, const std::vector<submit_arg_ref>& args,
                                     const std::vector<std::uint64_t>& explicit_deps) {
        std::vector<inferred_edge> edges;
        std::unordered_set<std::uint64_t> seen;
        for (const std::uint64_t p : explicit_deps)
            if (seen.insert(p).second) edges.push_back({p, edge_source::explicit_dep, -1});

        for (std::size_t i = 0; i < args.size(); ++i) {
            const auto [type, t] = args[i];
            if (type == dfx::arg_type::output) continue;  // created by this very submit
            const std::uint64_t creator = t->buf->owner;
            if (creator != no_task && seen.insert(creator).second)
                edges.push_back({creator, edge_source::creator, static_cast<int>(i)});
            if ((type != dfx::arg_type::input && type != dfx::arg_type::inout) || t->manual_dep) continue;
            auto found = writes_.find(t->buf->addr);
            if (found == writes_.end()) continue;
            auto& writes = found->second;  // oldest first
            for (std::size_t w = writes.size(); w-- > 0;) {
                const overlap o = classify(*t, writes[w].t);
                if (o == overlap::none) continue;
                seen.insert(writes[w].producer);
                edges.push_back({writes[w].producer, edge_source::tensormap, static_cast<int>(i)});
                // Later readers depend on this INOUT, which depends on the write it covers.
                if (type == dfx::arg_type::inout && o == overlap::covered)
                    writes.erase(writes.begin() + static_cast<std::ptrdiff_t>(w));
            }
        }

        for (const auto& [type, t] : args)
            if ((type == dfx::arg_type::inout || type == dfx::arg_type::output_existing) && !t->manual_dep) {
                writes_[t->buf->addr].push_back({task, *t});
                ++entries_;
            }
        return edges;
    }

    // Writes inserted so far (the map's size, were nothing ever retired).
    std::uint64_t entries() const { return entries_; }

private:
    enum class overlap { none, covered, other };
    struct write {
        std::uint64_t producer;
        tensor t;
    };

    // Both windows are in the same buffer, so the same row stride: two boxes.
    // COVERED when the consumer's box contains the producer's.
    static overlap classify(const tensor& consumer, const tensor& produced) {
        const auto intersects = [](std::uint32_t a0, std::uint32_t an, std::uint32_t b0, std::uint32_t bn) {
            return a0 < b0 + bn && b0 < a0 + an;
        };
        const auto contains = [](std::uint32_t o0, std::uint32_t on, std::uint32_t i0, std::uint32_t in) {
            return o0 <= i0 && i0 + in <= o0 + on;
        };
        if (!intersects(consumer.row0, consumer.rows, produced.row0, produced.rows) ||
            !intersects(consumer.col0, consumer.cols, produced.col0, produced.cols))
            return overlap::none;
        return contains(consumer.row0, consumer.rows, produced.row0, produced.rows) &&
                       contains(consumer.col0, consumer.cols, produced.col0, produced.cols)
                   ? overlap::covered
                   : overlap::other;
    }

    std::unordered_map<std::uint64_t, std::vector<write>> writes_;
    std::uint64_t entries_ = 0;
};

}  // namespace sim
