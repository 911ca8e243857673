// The reference's own args dump (tests/conformance/l4_deps/args_dump/, level
// 1, written by Simpler's collector), read back into entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "dfx/output/args_dump_json.hpp"
#include "dump_rig.hpp"

namespace dump_test {

struct reference_dump {
    std::string json;
    std::string bin;
    int level = 0;
    std::uint64_t dropped_records = 0;
    std::vector<dfx::args_dump_entry> entries;  // in file order
};

inline std::uint8_t dtype_code(std::string_view name) {
    for (std::uint8_t c = 0; c < 15; ++c)
        if (name == dfx::dtype_name(c)) return c;
    return 255;
}

inline reference_dump load_reference_dump() {
    const std::string dir = std::string(DFX_CONFORMANCE_DIR) + "/l4_deps/args_dump/";
    reference_dump ref;
    ref.json = read_file(dir + "args_dump.json");
    ref.bin = read_file(dir + "args.bin");
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(ref.json);
    ref.level = static_cast<int>(int64_t(doc["dump_args_level"]));
    ref.dropped_records = uint64_t(doc["dropped_records"]);
    for (simdjson::dom::element a : doc["args"].get_array()) {
        dfx::args_dump_entry e;
        dfx::args_dump_record& r = e.record;
        r.task_id = std::stoull(std::string(std::string_view(a["task_id"])), nullptr, 16);
        for (simdjson::dom::element f : a["func_id"].get_array())
            r.func_ids[r.func_count++] = static_cast<std::int32_t>(int64_t(f));
        r.arg_index = static_cast<std::uint32_t>(uint64_t(a["arg_index"]));
        const std::string_view role = a["role"];
        r.role = role == "input" ? dfx::dump_role::input : role == "output" ? dfx::dump_role::output : dfx::dump_role::inout;
        r.stage = std::string_view(a["stage"]) == "before_dispatch" ? dfx::dump_stage::before_dispatch
                                                                     : dfx::dump_stage::after_completion;
        r.kind = std::string_view(a["kind"]) == "scalar" ? dfx::dump_arg_kind::scalar : dfx::dump_arg_kind::tensor;
        r.dtype = dtype_code(a["dtype"]);
        if (r.kind == dfx::dump_arg_kind::scalar) {
            if (r.dtype == static_cast<std::uint8_t>(dfx::dtype::float32)) {
                const float f = static_cast<float>(double(a["value"]));
                std::uint32_t bits;
                std::memcpy(&bits, &f, 4);
                r.scalar_value = bits;
            } else {
                r.scalar_value = static_cast<std::uint32_t>(int64_t(a["value"]));  // the fixture's ints are INT32
            }
        }
        r.is_contiguous = bool(a["is_contiguous"]) ? 1 : 0;
        int d = 0;
        for (simdjson::dom::element s : a["shape"].get_array()) r.shape[d++] = static_cast<std::uint32_t>(uint64_t(s));
        r.ndims = static_cast<std::uint8_t>(d);
        d = 0;
        for (simdjson::dom::element s : a["strides"].get_array()) r.strides[d++] = static_cast<std::uint32_t>(uint64_t(s));
        r.start_offset = uint64_t(a["start_offset"]);
        bool ambiguous = false;
        if (a["arg_index_ambiguous"].get(ambiguous) == simdjson::SUCCESS && ambiguous) r.flags |= dfx::dump_flag_ambiguous;
        e.bin_offset = uint64_t(a["bin_offset"]);
        e.bin_size = uint64_t(a["bin_size"]);
        r.payload_size = e.bin_size;
        r.truncated = bool(a["truncated"]) ? 1 : 0;
        e.overwritten = bool(a["overwritten"]);
        ref.entries.push_back(e);
    }
    return ref;
}

// The entries in the order the reference's host collected them: payloads in
// args.bin order (it assigns offsets in collection order), scalars first.
inline std::vector<dfx::args_dump_entry> collection_order(std::vector<dfx::args_dump_entry> entries) {
    std::stable_sort(entries.begin(), entries.end(), [](const dfx::args_dump_entry& a, const dfx::args_dump_entry& b) {
        return (a.bin_size > 0 ? a.bin_offset + 1 : 0) < (b.bin_size > 0 ? b.bin_offset + 1 : 0);
    });
    return entries;
}

}  // namespace dump_test
