// Test rig: a scheduler view whose dump goes through a real transport and
// args_dump_host into a fresh directory, and what came out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/output/args_dump_host.hpp"

namespace dump_test {

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

template <int Level, class Overflow = dfx::block<>>
struct types {
    using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<Level>>;
    using guards = typename set::scheduler;
    using sink = dfx::scheduler_sink<guards, Overflow>;
    using view = dfx::scheduler_view<guards, dfx::steady_clock_source, sink>;
};

struct result {
    std::filesystem::path dir;  // <prefix>/args_dump
    bool dir_exists = false;
    bool json_exists = false;
    bool bin_exists = false;
    std::string json;
    std::string bin;
    dfx::args_dump_summary summary;
    std::vector<dfx::channel_report> report;
};

inline std::filesystem::path fresh_prefix(const std::string& name) {
    const auto prefix = std::filesystem::temp_directory_path() / ("dfx_args_dump_test_" + name);
    std::filesystem::remove_all(prefix);
    return prefix;
}

inline result collect(const std::filesystem::path& prefix, dfx::args_dump_host<>& host) {
    result r;
    r.summary = host.summary();
    r.report = host.report();
    host.write();
    r.dir = prefix / "args_dump";
    r.dir_exists = std::filesystem::exists(r.dir);
    r.json_exists = std::filesystem::exists(r.dir / "args_dump.json");
    r.bin_exists = std::filesystem::exists(r.dir / "args.bin");
    if (r.json_exists) r.json = read_file(r.dir / "args_dump.json");
    if (r.bin_exists) r.bin = read_file(r.dir / "args.bin");
    return r;
}

// Runs body(view) on this thread, one scheduler thread's worth, with the
// host draining. With start_late the host only starts draining after the
// body is done, so a `drop` policy loses exactly what did not fit.
template <int Level, class Overflow = dfx::block<>, class Body>
result run(const std::string& name, dfx::args_dump_layout layout, Body body, bool start_late = false) {
    using t = types<Level, Overflow>;
    const auto prefix = fresh_prefix(name);
    dfx::channel_registry channels;
    dfx::args_dump_host<> host(Level, prefix, layout, channels);
    if (!start_late) host.start();
    {
        auto sink = channels.sink<typename t::sink>(0);
        typename t::view view{&sink};
        body(view);
    }
    if (start_late) host.start();
    host.stop();
    return collect(prefix, host);
}

// Small arena and buffers: many buffer switches, and room for the tests' tensors.
inline dfx::args_dump_layout small_layout() {
    dfx::args_dump_layout layout;
    layout.records = {2, 4};
    layout.payload = {4, 8};  // 32 chunks: ~126 KiB of arena
    return layout;
}

template <class T, std::size_t N>
dfx::tensor_view view_of(T (&data)[N], dfx::dtype type, std::initializer_list<std::uint32_t> shape,
                         std::initializer_list<std::uint32_t> strides, std::uint64_t start_offset = 0) {
    dfx::tensor_view v;
    v.addr = reinterpret_cast<std::uintptr_t>(data);
    v.size = sizeof(T) * N;
    v.dtype = static_cast<std::uint8_t>(type);
    v.ndims = static_cast<std::uint8_t>(shape.size());
    int d = 0;
    for (auto s : shape) v.shape[d++] = s;
    d = 0;
    for (auto s : strides) v.strides[d++] = s;
    v.start_offset = start_offset;
    return v;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
    std::string out;
    for (const T& v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

}  // namespace dump_test
