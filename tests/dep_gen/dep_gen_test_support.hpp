// Building dep_gen record streams by hand (the documented record layout of
// record/dep_gen_records.hpp, independently of the capture code) and reading
// the hand-written goldens in golden/.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "dfx/output/deps_json.hpp"
#include "dfx/record/dep_gen_records.hpp"

namespace dg {

using dfx::arg_type;
using dfx::dtype;

// A view of `size_bytes` of the buffer at `addr`; contiguous unless made
// strided() below.
inline dfx::tensor_view view(std::uint64_t addr, std::uint64_t size_bytes, dtype type,
                             std::initializer_list<std::uint32_t> shape, std::initializer_list<std::uint32_t> strides,
                             std::uint64_t start_offset = 0) {
    dfx::tensor_view v;
    v.addr = addr;
    v.size = size_bytes;
    v.dtype = static_cast<std::uint8_t>(type);
    v.start_offset = start_offset;
    v.ndims = static_cast<std::uint8_t>(shape.size());
    int d = 0;
    for (std::uint32_t s : shape) v.shape[d++] = s;
    d = 0;
    for (std::uint32_t s : strides) v.strides[d++] = s;
    return v;
}

inline dfx::tensor_view strided(dfx::tensor_view v, std::uint64_t extent) {
    v.contiguous = false;
    v.extent = extent;
    return v;
}

inline dfx::tensor_view owned_by(dfx::tensor_view v, std::uint64_t owner) {
    v.owner_task_id = owner;
    return v;
}

inline dfx::tensor_view at_version(dfx::tensor_view v, std::int32_t version) {
    v.version = version;
    return v;
}

inline dfx::tensor_view manual_dep(dfx::tensor_view v) {
    v.manual_dep = true;
    return v;
}

struct arg {
    arg_type type = arg_type::input;
    std::optional<dfx::tensor_view> view;  // empty: the part says has_view = false
};

inline arg input(const dfx::tensor_view& v) { return {arg_type::input, v}; }
inline arg inout(const dfx::tensor_view& v) { return {arg_type::inout, v}; }
inline arg output_existing(const dfx::tensor_view& v) { return {arg_type::output_existing, v}; }
inline arg no_dep(const dfx::tensor_view& v) { return {arg_type::no_dep, v}; }
inline arg output() { return {arg_type::output, std::nullopt}; }

struct submit {
    std::uint64_t id = 0;
    std::array<std::int32_t, 3> kernels{-1, 0, -1};
    std::vector<arg> args{};
    std::vector<std::uint64_t> deps{};
    std::uint32_t flags = 0;
    std::uint32_t block_num = 1;
};

// The host's copy of a record stream (output/dep_gen_stream.hpp): each
// record's header and payload, padded to 8 bytes.
using stream = std::vector<std::byte>;

// A record's header with everything zero but the id and kind.
inline dfx::dep_gen_record header(std::uint64_t id, dfx::dep_gen_kind kind = dfx::dep_gen_kind::submit) {
    dfx::dep_gen_record h{};
    h.task_id = id;
    h.kind = kind;
    h.block_num = 1;
    h.kernel_ids[0] = h.kernel_ids[1] = h.kernel_ids[2] = -1;
    return h;
}

// Appends a header and the payload bytes given (not checked against it).
inline void put(stream& out, const dfx::dep_gen_record& h, const std::vector<std::byte>& payload) {
    const std::size_t at = out.size();
    out.resize(at + (sizeof h + payload.size() + 7) / 8 * 8);
    std::memcpy(out.data() + at, &h, sizeof h);
    if (!payload.empty()) std::memcpy(out.data() + at + sizeof h, payload.data(), payload.size());
}

template <class T>
void put_bytes(std::vector<std::byte>& out, const T& value) {
    const std::size_t at = out.size();
    out.resize(at + sizeof value);
    std::memcpy(out.data() + at, &value, sizeof value);
}

// A submit as the documented record layout has it (record/dep_gen_records.hpp),
// written by hand, independently of the capture code: the submit record with
// as many deps as its slot holds, then deps records.
inline void append(stream& out, const submit& s) {
    dfx::dep_gen_record h = header(s.id);
    h.flags = static_cast<std::uint8_t>(s.flags);
    for (int k = 0; k < 3; ++k) h.kernel_ids[k] = s.kernels[static_cast<std::size_t>(k)];
    h.block_num = s.block_num;
    h.tensor_count = static_cast<std::uint8_t>(s.args.size());
    std::vector<std::byte> payload;
    for (const arg& a : s.args)
        payload.push_back(static_cast<std::byte>(static_cast<std::uint8_t>(a.type) |
                                                 (a.view ? dfx::dep_gen_arg_has_view : 0)));
    payload.resize((payload.size() + 7) / 8 * 8);  // the type bytes' padding
    for (const arg& a : s.args)
        if (a.view) {
            put_bytes(payload, *a.view);
            ++h.view_count;
        }
    const std::size_t room = (dfx::dep_gen_max_payload - payload.size()) / 8;
    std::size_t first = std::min(room, s.deps.size());
    for (std::size_t k = 0; k < first; ++k) put_bytes(payload, s.deps[k]);
    h.dep_count = static_cast<std::uint16_t>(first);
    h.more_deps = first < s.deps.size();
    put(out, h, payload);
    while (first < s.deps.size()) {
        const std::size_t n = std::min<std::size_t>(dfx::dep_gen_deps_per_record, s.deps.size() - first);
        dfx::dep_gen_record d = header(s.id, dfx::dep_gen_kind::deps);
        d.dep_count = static_cast<std::uint16_t>(n);
        d.more_deps = first + n < s.deps.size();
        std::vector<std::byte> deps;
        for (std::size_t k = first; k < first + n; ++k) put_bytes(deps, s.deps[k]);
        put(out, d, deps);
        first += n;
    }
}

inline stream records_of(std::initializer_list<submit> submits) {
    stream out;
    for (const submit& s : submits) append(out, s);
    return out;
}

inline std::string render(const stream& records) {
    const dfx::dep_graph graph = dfx::replay_dep_gen(std::span<const std::byte>(records));
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    {
        dfx::text_writer out(f);
        dfx::write_deps_json(out, graph);
    }
    std::fclose(f);
    std::string text(data, size);
    std::free(data);
    return text;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// JSON with the insignificant whitespace taken out (none of the goldens has
// whitespace inside a string, but strings are honoured anyway).
inline std::string compact_json(const std::string& text) {
    std::string out;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) out += text[++i];
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
            out += c;
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            out += c;
        }
    }
    return out;
}

// A hand-written golden from golden/, as the writer's one line.
inline std::string golden(const std::string& name) {
    const std::string text = read_text(std::string(DFX_DEP_GEN_GOLDEN_DIR) + "/" + name);
    REQUIRE_MESSAGE(!text.empty(), "golden " << name << " is missing or empty");
    return compact_json(text) + "\n";
}

}  // namespace dg
