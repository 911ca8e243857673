// <prefix>/args_dump/args_dump.json, exactly as the reference's collector
// writes it (../shared/spec/args-dump-and-pmu.md A3.1): the manifest of
// every captured argument, with where its bytes sit in args.bin. Key order,
// indentation, scalar rendering, "0x%016x" task ids and the counts are the
// reference's; tests/args_dump rebuilds the reference's own file byte for
// byte.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <tuple>
#include <vector>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/record/tensor_view.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx {

// One captured argument, resolved against args.bin.
struct args_dump_entry {
    args_dump_record record;
    std::uint64_t bin_offset = 0;  // 0 when bin_size is 0
    std::uint64_t bin_size = 0;    // payload bytes in args.bin
    bool overwritten = false;      // its bytes did not all reach args.bin (the reference's "host too slow")
};

struct args_dump_header {
    int level = 1;
    std::uint64_t dropped_records = 0;  // argument records lost in transport: absent from `args`
    // Call records the host could not decode (a producer bug or corrupt
    // memory): their arguments are absent, uncounted. Written only when not 0
    // (the reference has no such key), so such a manifest never looks whole.
    std::uint64_t malformed_call_records = 0;
};

// The reference's order: (task_id, stage, arg_index, role). Stable, so equal
// keys (an SPMD task's blocks) keep collection order, i.e. args.bin order.
inline void sort_args_dump(std::vector<args_dump_entry>& entries) {
    std::stable_sort(entries.begin(), entries.end(), [](const args_dump_entry& a, const args_dump_entry& b) {
        const auto key = [](const args_dump_record& r) {
            return std::tuple(r.task_id, static_cast<int>(r.stage), r.arg_index, static_cast<int>(r.role));
        };
        return key(a.record) < key(b.record);
    });
}

namespace detail {

inline std::string_view dump_role_name(dump_role role) noexcept {
    switch (role) {
        case dump_role::input: return "input";
        case dump_role::output: return "output";
        case dump_role::inout: return "inout";
    }
    return "input";
}

// C++ ostream default formatting of a float (6 significant digits, %g), with
// ".0" added when the text has neither '.' nor 'e'; NaN is null and the
// infinities are the strings "$Inf" / "-$Inf", as the reference writes them.
inline void write_float_value(text_writer& out, float value) {
    if (std::isnan(value)) {
        out.raw("null");
        return;
    }
    if (std::isinf(value)) {
        out.raw(value > 0 ? "\"$Inf\"" : "\"-$Inf\"");
        return;
    }
    char text[32];
    const int n = std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
    out.raw(std::string_view(text, static_cast<std::size_t>(n)));
    if (!std::memchr(text, '.', static_cast<std::size_t>(n)) && !std::memchr(text, 'e', static_cast<std::size_t>(n)))
        out.raw(".0");
}

}  // namespace detail

// A scalar's "value", from the low bytes of its raw 64-bit slot.
inline void write_args_dump_scalar(text_writer& out, std::uint8_t dtype_code, std::uint64_t raw) {
    switch (static_cast<dtype>(dtype_code)) {
        case dtype::float32: {
            const auto bits = static_cast<std::uint32_t>(raw);
            float f;
            std::memcpy(&f, &bits, sizeof f);
            detail::write_float_value(out, f);
            return;
        }
        case dtype::int32: out.number(static_cast<std::int32_t>(static_cast<std::uint32_t>(raw))); return;
        case dtype::uint32: out.number(static_cast<std::uint32_t>(raw)); return;
        case dtype::boolean: out.raw(raw != 0 ? "true" : "false"); return;
        case dtype::int64: out.number(static_cast<std::int64_t>(raw)); return;
        default: out.number(raw); return;  // narrow types were zero-extended: int8 -1 is 255
    }
}

inline void write_args_dump_entry(text_writer& out, const args_dump_entry& e) {
    const args_dump_record& r = e.record;
    const bool scalar = r.kind == dump_arg_kind::scalar;
    char id[24];
    std::snprintf(id, sizeof id, "0x%016" PRIx64, r.task_id);
    out.raw("{\"task_id\": \"").raw(id).raw("\", \"func_id\": [");
    const int funcs = r.func_count < 3 ? r.func_count : 3;
    for (int k = 0; k < funcs; ++k) out.raw(k ? ", " : "").number(r.func_ids[k] < 0 ? -1 : r.func_ids[k]);
    out.raw("], \"arg_index\": ").number(r.arg_index);
    out.raw(", \"role\": \"").raw(detail::dump_role_name(r.role));
    out.raw("\", \"stage\": \"").raw(r.stage == dump_stage::before_dispatch ? "before_dispatch" : "after_completion");
    out.raw("\", \"kind\": \"").raw(scalar ? "scalar" : "tensor");
    out.raw("\", \"dtype\": \"").raw(dtype_name(r.dtype)).raw("\"");
    if (scalar) {
        out.raw(", \"value\": ");
        write_args_dump_scalar(out, r.dtype, r.scalar_value);
    }
    out.raw(", \"is_contiguous\": ").raw(r.is_contiguous ? "true" : "false");
    const int ndims = scalar ? 0 : (r.ndims < max_tensor_dims ? r.ndims : max_tensor_dims);
    std::uint64_t numel = 1;
    out.raw(", \"shape\": [");
    for (int d = 0; d < ndims; ++d) {
        out.raw(d ? ", " : "").number(r.shape[d]);
        numel *= r.shape[d];
    }
    out.raw("], \"strides\": [");
    for (int d = 0; d < ndims; ++d) out.raw(d ? ", " : "").number(r.strides[d]);
    out.raw("], \"start_offset\": ").number(r.start_offset);
    out.raw(", \"numel\": ").number(numel);
    if (r.flags & dump_flag_ambiguous) out.raw(", \"arg_index_ambiguous\": true");
    out.raw(", \"bin_offset\": ").number(e.bin_size > 0 ? e.bin_offset : 0);
    out.raw(", \"bin_size\": ").number(e.bin_size);
    out.raw(", \"truncated\": ").raw(r.truncated ? "true" : "false");
    out.raw(", \"overwritten\": ").raw(e.overwritten ? "true" : "false").raw("}");
}

// Writes the manifest for entries already in their final order (see
// sort_args_dump); the counts are computed from them.
inline void write_args_dump_json(text_writer& out, const args_dump_header& h, const std::vector<args_dump_entry>& entries) {
    std::uint64_t before = 0, after = 0, inputs = 0, outputs = 0, inouts = 0, truncated = 0, overwritten = 0;
    for (const auto& e : entries) {
        (e.record.stage == dump_stage::before_dispatch ? before : after) += 1;
        (e.record.role == dump_role::input ? inputs : e.record.role == dump_role::output ? outputs : inouts) += 1;
        truncated += e.record.truncated ? 1 : 0;
        overwritten += e.overwritten ? 1 : 0;
    }
    out.raw("{\n  \"run_dir\": \"args_dump\",\n");
    out.raw("  \"bin_format\": {\n    \"type\": \"logical_contiguous\",\n    \"byte_order\": \"little_endian\"\n  },\n");
    out.raw("  \"dump_args_level\": ").number(h.level).raw(",\n");
    out.raw("  \"total_args\": ").number(entries.size()).raw(",\n");
    out.raw("  \"before_dispatch\": ").number(before).raw(",\n");
    out.raw("  \"after_completion\": ").number(after).raw(",\n");
    out.raw("  \"input_args\": ").number(inputs).raw(",\n");
    out.raw("  \"output_args\": ").number(outputs).raw(",\n");
    out.raw("  \"inout_args\": ").number(inouts).raw(",\n");
    out.raw("  \"truncated_args\": ").number(truncated).raw(",\n");
    out.raw("  \"dropped_records\": ").number(h.dropped_records).raw(",\n");
    out.raw("  \"dropped_overwrite\": ").number(overwritten).raw(",\n");
    if (h.malformed_call_records > 0)
        out.raw("  \"malformed_call_records\": ").number(h.malformed_call_records).raw(",\n");
    out.raw("  \"bin_file\": \"args.bin\",\n");
    out.raw("  \"args\": [");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        out.raw(i ? ",\n    " : "\n    ");
        write_args_dump_entry(out, entries[i]);
    }
    out.raw(entries.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

inline std::filesystem::path write_args_dump_json_file(const std::filesystem::path& prefix, const args_dump_header& h,
                                                       const std::vector<args_dump_entry>& entries) {
    const auto path = prefix / schema::args_dump_dir / schema::args_dump_manifest_file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_args_dump_json(out, h, entries);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
