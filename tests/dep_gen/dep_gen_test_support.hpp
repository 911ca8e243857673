// Building dep_gen record streams by hand (the documented part layout of
// record/dep_gen_records.hpp, independently of the capture code) and reading
// the hand-written goldens in golden/.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

inline void append(std::vector<dfx::dep_gen_record>& out, const submit& s) {
    dfx::dep_gen_record task;
    task.task_id = s.id;
    task.part = dfx::dep_gen_part::task;
    task.task.flags = s.flags;
    task.task.tensor_count = static_cast<std::uint16_t>(s.args.size());
    task.task.dep_count = static_cast<std::uint32_t>(s.deps.size());
    for (int k = 0; k < 3; ++k) task.task.kernel_ids[k] = s.kernels[static_cast<std::size_t>(k)];
    task.task.block_num = s.block_num;
    out.push_back(task);
    for (std::size_t i = 0; i < s.args.size(); ++i) {
        dfx::dep_gen_record t;
        t.task_id = s.id;
        t.part = dfx::dep_gen_part::tensor;
        t.tensor = dfx::dep_gen_tensor_part{};
        t.tensor.index = static_cast<std::uint8_t>(i);
        t.tensor.type = s.args[i].type;
        t.tensor.has_view = s.args[i].view.has_value();
        if (s.args[i].view) t.tensor.view = *s.args[i].view;
        out.push_back(t);
    }
    for (std::size_t first = 0; first < s.deps.size(); first += dfx::dep_gen_deps_per_part) {
        dfx::dep_gen_record d;
        d.task_id = s.id;
        d.part = dfx::dep_gen_part::deps;
        d.deps = dfx::dep_gen_deps_part{};
        const std::size_t n = std::min<std::size_t>(dfx::dep_gen_deps_per_part, s.deps.size() - first);
        d.count = static_cast<std::uint8_t>(n);
        for (std::size_t k = 0; k < n; ++k) d.deps.deps[k] = s.deps[first + k];
        out.push_back(d);
    }
}

inline std::vector<dfx::dep_gen_record> records_of(std::initializer_list<submit> submits) {
    std::vector<dfx::dep_gen_record> out;
    for (const submit& s : submits) append(out, s);
    return out;
}

inline std::string render(const std::vector<dfx::dep_gen_record>& records) {
    const dfx::dep_graph graph = dfx::replay_dep_gen(std::span<const dfx::dep_gen_record>(records));
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
