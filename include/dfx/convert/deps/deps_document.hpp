// deps_document: what `deps.json` holds, as the viewer needs it (dep-gen.md §2).
//
// Ids are normalised the way the reference viewer does (`int(v)`: a decimal
// string or a number, negatives wrapped to 64 bits). Fields are kept only at
// the level of detail the requested output needs: the text view needs edge
// endpoints and sources only, the rich HTML view the per-edge arg / tensor /
// overlap and the task args, the dataflow edge modes the edge geometry too.
// That keeps memory proportional to what is rendered, not to the file.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace dfx::convert::deps {

enum class edge_source : unsigned char { other, explicit_dep, creator, tensormap };

// A JSON member that may be absent, present with a usable value, or present
// with an unusable one. The reference's fallbacks (`row.get(k, arg.get(k))`)
// depend on presence, its checks on the value.
template <class T>
struct field {
    bool present = false;
    std::optional<T> value;
};

// One element of a task's `args[]`.
struct task_arg {
    std::optional<std::int64_t> idx;
    std::string type;  // INPUT / OUTPUT / INOUT / OUTPUT_EXISTING / UNKNOWN; "" if not a string
    std::optional<std::uint64_t> tensor_id;
    bool inferred = false;  // tensor_id was back-filled from a creator edge (§3.2)
    field<std::string> dtype;
    field<std::vector<std::int64_t>> shape;
    field<std::vector<std::int64_t>> strides;
    field<std::int64_t> start_offset;
};

// (48 bytes, not 80: the two flags side by side, and the args apart; every
// task of a run is one.)
struct task_entry {
    static constexpr std::uint32_t no_args = UINT32_MAX;

    std::uint64_t id = 0;
    std::array<std::int64_t, 3> slots{-1, -1, -1};  // kernel_ids [aic, aiv0, aiv1], padded to 3
    std::int64_t block_num = 1;                     // < 1 or unparseable counts as 1
    // kernel_ids was there and a list of exactly 3 integers: the swimlane's
    // kernel map takes only those (chip-swimlane.md §4.2); the viewer pads.
    bool kernel_ids_listed = false;
    bool early_dispatch = false;
    // Its args: deps_document::task_args[args_at], or none (no_args). Kept
    // only for the rich HTML / dataflow views; a vector here was 24 bytes of
    // every task, always empty for the text view (240 MB at 10^7 tasks).
    std::uint32_t args_at = no_args;

    bool has_kernel() const { return slots[0] >= 0 || slots[1] >= 0 || slots[2] >= 0; }
};

struct tensor_entry {
    std::uint64_t id = 0;
    std::size_t ordinal = 0;  // position in tensors[] (skipped entries count): the name T<ordinal>
    field<std::int64_t> buffer_addr;
    field<std::int64_t> buffer_numel;
    std::string buffer_numel_text;  // as printed in the HTML arg rows
    std::optional<std::string> dtype;
};

// The endpoints and source of one annotated edge row: all the text view needs.
struct edge_key {
    std::uint64_t pred = 0;
    std::uint64_t succ = 0;
    edge_source source = edge_source::other;
};

// Geometry of an edge row (the consumer_* / producer_* members), for the
// dataflow proof of §3.5.
struct edge_geometry {
    field<std::string> consumer_dtype;
    field<std::string> producer_dtype;
    field<std::vector<std::int64_t>> consumer_shape;
    field<std::vector<std::int64_t>> consumer_strides;
    field<std::int64_t> consumer_start_offset;
    field<std::vector<std::int64_t>> producer_shape;
    field<std::vector<std::int64_t>> producer_strides;
    field<std::int64_t> producer_start_offset;
};

struct edge_detail {
    std::optional<std::int64_t> arg;
    std::optional<std::uint64_t> tensor_id;
    std::string overlap;  // "" when absent or not a string
    std::uint32_t geometry = UINT32_MAX;  // index into deps_document::geometry
};

// The rows and tasks, one per entry of a file of unknown length, are kept in
// deques: a vector grown by doubling holds up to twice what it needs, and
// three times while it moves (1.8 GB for the tasks alone at 10^7 tasks).
struct deps_document {
    std::deque<edge_key> edges;           // every annotated row, file order
    std::vector<edge_detail> details;     // parallel to edges when details were requested
    std::vector<edge_geometry> geometry;  // when geometry was requested
    std::deque<task_entry> tasks;         // file order; a repeated id: the last one wins
    std::deque<std::vector<task_arg>> task_args;  // of the tasks with args, when details or geometry were requested
    std::vector<tensor_entry> tensors;    // file order; a repeated id: the last one wins
    std::size_t dropped_edges = 0;        // non-object entries or unparseable pred/succ
};

// Which reference tool's reading `lenient` restores where the two differ
// (docs/converters.md, "--lenient"): the deps viewer's (dep-gen.md §3.2,
// §3.3: `dfx deps`, `dfx critical-path`) or the swimlane converter's
// (chip-swimlane.md §4.2: `dfx swimlane`, `dfx sched-overhead`). Checked
// (not lenient) there is one reading, the same for every command.
//
//                     viewer                          swimlane
//   edges not a list  {} or "..." is no edges,        no usable edges (the
//                     anything else an error          converter warns, no arrows)
//   kernel_ids        padded / truncated to 3, a      a list of exactly 3 integers,
//                     slot int() refuses is -1        else no kernel entry; a slot
//                                                     that is not an integer is an error
//   block_num         int(v) (strings, floats)        an integer, else 1
enum class deps_dialect : unsigned char { viewer, swimlane };

// How much of deps.json to keep.
struct deps_load_options {
    bool details = false;   // edge arg/tensor/overlap and task args (rich HTML)
    bool geometry = false;  // edge geometry and task args (dataflow edge modes)
    // The reference's reading (drop what is unusable) instead of the checks
    // of deps_reader.hpp: the `--lenient` option.
    bool lenient = false;
    deps_dialect dialect = deps_dialect::viewer;  // (only matters when lenient)
};

}  // namespace dfx::convert::deps
