// dump_viewer: `dfx dump` / `dump_viewer` (args-dump-and-pmu.md §A5.1): list the
// args of an args dump, filter them (--task --stage --role --arg, combinable),
// pick one by manifest index (--index, which always exports) and export the
// selection as text files decoded from args.bin at each entry's recorded offset.
//
// Output is line for line the reference viewer's: the listing table, the
// "Filtered: k/N args" header, "Saved: <file>" lines and the exported file
// layout (# header lines, # Overview grid, # Detail list).
#pragma once

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_format.hpp"
#include "dfx/convert/common/py_path.hpp"
#include "dfx/convert/dump/args_dump.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::dump {

struct dump_viewer_options {
    std::optional<std::string> dump_dir;  // default: the newest ./outputs/*/args_dump
    std::optional<std::string> task;
    std::optional<std::string> stage;  // before | after
    std::optional<std::string> role;   // input | output | inout
    std::optional<std::int64_t> arg;
    std::optional<std::int64_t> index;
    bool do_export = false;
};

// ---- element decoding ------------------------------------------------------

// Element size by (lower-case) dtype name; unknown dtypes are shown byte by byte.
inline std::size_t element_size(std::string dtype) {
    for (char& c : dtype) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (dtype == "float32" || dtype == "int32" || dtype == "uint32") return 4;
    if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16" || dtype == "uint16") return 2;
    if (dtype == "int64" || dtype == "uint64") return 8;
    return 1;  // int8 / uint8 / bool / FP8 / FP4 / unknown
}

inline double half_to_double(std::uint16_t h) {
    const int exp = (h >> 10) & 0x1F;
    const int mant = h & 0x3FF;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0) return sign * std::ldexp(mant, -24);
    if (exp == 31) return mant ? std::nan("") : sign * HUGE_VAL;
    return sign * std::ldexp(mant + 1024, exp - 25);
}

// The element at `p` as the reference prints it: float32 .6g, float16 .4g,
// bfloat16 .3g, integers in decimal, bool True/False, others as 0x.. bytes.
inline std::string format_element(const unsigned char* p, const std::string& dtype_upper) {
    auto load = [p](auto tag) {
        decltype(tag) v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    std::string d = dtype_upper;
    for (char& c : d) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (d == "FLOAT32") return py_format_g(load(float{}), 6);
    if (d == "FLOAT16") return py_format_g(half_to_double(load(std::uint16_t{})), 4);
    if (d == "BFLOAT16") {
        const std::uint32_t bits = static_cast<std::uint32_t>(load(std::uint16_t{})) << 16;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return py_format_g(f, 3);
    }
    if (d == "INT32") return std::to_string(load(std::int32_t{}));
    if (d == "UINT32") return std::to_string(load(std::uint32_t{}));
    if (d == "INT64") return std::to_string(load(std::int64_t{}));
    if (d == "UINT64") return std::to_string(load(std::uint64_t{}));
    if (d == "INT16") return std::to_string(load(std::int16_t{}));
    if (d == "UINT16") return std::to_string(load(std::uint16_t{}));
    if (d == "INT8") return std::to_string(load(std::int8_t{}));
    if (d == "UINT8") return std::to_string(load(std::uint8_t{}));
    if (d == "BOOL") return p[0] ? "True" : "False";
    return fmt::format("0x{:02x}", p[0]);
}

// ---- listing -----------------------------------------------------------------

inline std::string stage_short(const std::string& stage) { return stage == "before_dispatch" ? "before" : "after"; }

inline void print_listing(const std::vector<const dump_arg*>& args) {
    fmt::print("{:>6}  {:>18}  {:>7}  {:>5}  {:>3}  {:>8}  {:<20}  {:>10}\n", "idx", "task_id", "stage", "role", "arg",
               "dtype", "shape", "bytes");
    fmt::print("{}\n", std::string(100, '-'));
    for (std::size_t i = 0; i < args.size(); ++i) {
        const dump_arg& a = *args[i];
        fmt::print("{:>6}  {:>18}  {:>7}  {:>5}  {:>3}  {:>8}  {:<20}  {:>10}\n", i, a.task_id, stage_short(a.stage),
                   a.role, a.arg_index, a.dtype, py_list_repr(a.shape), a.bin_size);
    }
}

// ---- export ------------------------------------------------------------------

inline std::string export_file_name(const dump_arg& a) {
    const std::string stage = a.stage == "before_dispatch" ? "before" : a.stage == "after_completion" ? "after" : a.stage;
    const std::string role = a.role == "input" ? "in" : a.role == "output" ? "out" : a.role;  // inout stays inout
    return fmt::format("task_{}_{}_{}{}.txt", a.task_id, stage, role, a.arg_index);
}

// Reads [offset, offset+size) of the payload file; fewer bytes when the file is short.
// Offset and size come from the manifest: the size is cut to what the file
// holds before the buffer is allocated (a bin_size of 2^40 is not 1 TB of RAM).
inline std::vector<unsigned char> read_payload(const std::string& bin_path, std::uint64_t offset, std::uint64_t size) {
    require_regular_file(bin_path);  // a FIFO or a device: an error, never a hang (payloads are read at offsets)
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(bin_path.c_str(), "rb"), &std::fclose);
    if (!f) throw input_error(fmt::format("{}: cannot open: {}", bin_path, std::strerror(errno)));
    if (fseeko(f.get(), 0, SEEK_END) != 0) return {};
    const off_t end = ftello(f.get());
    if (end < 0 || offset >= static_cast<std::uint64_t>(end)) return {};
    size = std::min(size, static_cast<std::uint64_t>(end) - offset);
    if (fseeko(f.get(), static_cast<off_t>(offset), SEEK_SET) != 0) return {};
    std::vector<unsigned char> data(size);
    data.resize(std::fread(data.data(), 1, data.size(), f.get()));
    return data;
}

template <class Out>
void write_export(Out& out, const dump_arg& a, const std::optional<std::string>& bin_path, std::string_view manifest,
                  std::size_t index) {
    auto need = [&](bool present, const char* key) {
        if (!present) throw input_error(fmt::format("{}: args[{}]: missing \"{}\" (needed to export)", manifest, index, key));
    };
    need(a.is_contiguous.has_value(), "is_contiguous");
    need(a.strides.has_value(), "strides");
    need(a.start_offset.has_value(), "start_offset");
    out.append(fmt::format("# task_id: {}\n# role: {}\n# stage: {}\n# arg_index: {}\n# dtype: {}\n# kind: {}\n"
                           "# is_contiguous: {}\n# shape: {}\n# strides: {}\n# start_offset: {}\n",
                           a.task_id, a.role, a.stage, a.arg_index, a.dtype, a.kind, *a.is_contiguous ? "True" : "False",
                           py_list_repr(a.shape), py_list_repr(*a.strides), *a.start_offset));
    if (a.overwritten) {
        out.append("# DATA OVERWRITTEN (host too slow)\n");
        return;
    }
    if (a.truncated) out.append("# DATA TRUNCATED (tensor too large for arena)\n");
    if (a.kind == "scalar") {
        std::string v = a.value.value_or("None");
        std::string d = a.dtype;
        for (char& c : d) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (d == "BOOL") v = a.value_truthy ? "true" : "false";
        out.append(fmt::format("# value: {}\n", v));
        return;
    }
    if (a.bin_size == 0) {
        out.append("# (no data)\n");
        return;
    }
    need(a.bin_offset.has_value(), "bin_offset");
    if (!bin_path) throw input_error(fmt::format("{}: args[{}] has {} payload bytes but bin_file is null", manifest, index, a.bin_size));
    const std::vector<unsigned char> data = read_payload(*bin_path, *a.bin_offset, a.bin_size);
    // (check_payloads_present() refused a cut payload before any export; the file may have shrunk since)
    if (data.size() < a.bin_size)
        throw input_error(fmt::format("{}: args[{}] wants bytes [{}, {}), only {} present (args.bin truncated?)", *bin_path,
                                      index, *a.bin_offset, *a.bin_offset + a.bin_size, data.size()));

    std::uint64_t numel = 1;
    for (std::int64_t d : a.shape) numel *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
    if (numel == 0) numel = 1;
    const std::size_t elem = element_size(a.dtype);
    numel = std::min<std::uint64_t>(numel, data.size() / elem);
    std::vector<std::string> cells;
    cells.reserve(numel);
    std::size_t width = 1;
    for (std::uint64_t i = 0; i < numel; ++i) {
        cells.push_back(format_element(data.data() + i * elem, a.dtype));
        width = std::max(width, cells.back().size());
    }
    if (cells.empty()) width = 1;

    // Overview: one row per last-dimension run, right-aligned.
    std::uint64_t last = a.shape.empty() ? numel : static_cast<std::uint64_t>(std::max<std::int64_t>(a.shape.back(), 0));
    if (last == 0) last = numel;
    out.append("\n# Overview:\n");
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) out.append(last && i % last == 0 ? "\n" : " ");
        out.append(fmt::format("{:>{}}", cells[i], width));
        out.maybe_flush();
    }
    out.append("\n\n# Detail:\n");
    // Row-major coordinates over `shape`.
    std::vector<std::uint64_t> pitch(a.shape.size(), 1);
    for (std::size_t d = a.shape.size(); d-- > 1;)
        pitch[d - 1] = pitch[d] * static_cast<std::uint64_t>(std::max<std::int64_t>(a.shape[d], 0));
    for (std::size_t i = 0; i < cells.size(); ++i) {
        std::string coord;
        std::uint64_t rem = i;
        for (std::size_t d = 0; d < a.shape.size(); ++d) {
            const std::uint64_t c = pitch[d] ? rem / pitch[d] : 0;
            if (pitch[d]) rem %= pitch[d];
            coord += (d ? ", " : "") + std::to_string(c);
        }
        out.append(fmt::format("[{}] {}\n", coord, cells[i]));
        out.maybe_flush();
    }
}

// ---- the command ----------------------------------------------------------------

namespace detail {

// The payload file must hold every byte the manifest says it holds: a
// truncated args.bin is an error naming the first entry it cuts (and how many
// it cuts), before anything is listed or exported (the reference's listing
// never opens the bin, and its export writes files of empty data).
inline void check_payloads_present(const args_manifest& m, const std::optional<std::string>& bin_path,
                                   const std::string& manifest_path) {
    std::optional<std::uint64_t> size;
    std::size_t cut = 0, first = 0;
    std::uint64_t first_end = 0;
    for (std::size_t i = 0; i < m.args.size(); ++i) {
        const dump_arg& a = m.args[i];
        if (a.kind == "scalar" || a.overwritten || a.bin_size == 0) continue;
        if (!a.bin_offset) throw input_error(fmt::format("{}: args[{}]: missing \"bin_offset\" for {} payload bytes",
                                                         manifest_path, i, a.bin_size));
        if (!bin_path)
            throw input_error(fmt::format("{}: args[{}] has {} payload bytes but bin_file is null", manifest_path, i, a.bin_size));
        if (!size) {
            // The path came from the manifest: an error about it names the
            // manifest too (its bin_file may be what is wrong).
            try {
                require_regular_file(*bin_path);
            } catch (const input_error& e) {
                throw input_error(fmt::format("{} (the payload file of {})", e.what(), manifest_path));
            }
            std::error_code ec;
            const auto n = std::filesystem::file_size(*bin_path, ec);
            if (ec) throw input_error(fmt::format("{}: cannot read its size: {}", *bin_path, ec.message()));
            size = n;
        }
        const std::uint64_t end = *a.bin_offset + a.bin_size;
        if (end < *a.bin_offset || end > *size) {
            if (cut++ == 0) {
                first = i;
                first_end = end;
            }
        }
    }
    if (cut > 0)
        throw input_error(fmt::format("{}: {} bytes, but {} entr{} of {} need more (args[{}] ends at byte {}): the file is "
                                      "truncated or does not belong to this manifest",
                                      *bin_path, *size, cut, cut == 1 ? "y" : "ies", manifest_path, first, first_end));
}

inline std::optional<std::string> latest_dump_dir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::optional<fs::path> best;
    fs::file_time_type best_time{};
    for (fs::directory_iterator it("outputs", ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path cand = it->path() / schema::args_dump_dir;
        std::error_code e2;
        if (!fs::is_directory(cand, e2)) continue;
        const auto t = fs::last_write_time(cand, e2);
        if (!e2 && (!best || t >= best_time)) {
            best = cand;
            best_time = t;
        }
    }
    if (!best) return std::nullopt;
    return best->string();
}

}  // namespace detail

// Runs the viewer; returns the exit code. Bad input throws input_error.
inline int run_dump_viewer(const dump_viewer_options& opt) {
    namespace fs = std::filesystem;
    std::string dir;
    if (opt.dump_dir) {
        dir = py_path(*opt.dump_dir);
    } else {
        const auto latest = detail::latest_dump_dir();
        if (!latest) throw input_error("no outputs/*/args_dump directory found");
        dir = py_path(*latest);
        fmt::print("Using latest dump directory: {}\n", dir);
    }
    const std::string manifest_path = py_path_join(dir, schema::args_dump_manifest_file);
    std::error_code ec;
    if (!fs::exists(manifest_path, ec)) throw input_error("args_dump.json not found in " + dir);
    const args_manifest m = read_args_manifest(manifest_path);
    const std::optional<std::string> bin_path =
        m.bin_file && !m.bin_file->empty() ? std::optional<std::string>(py_path_join(dir, *m.bin_file)) : std::nullopt;
    detail::check_payloads_present(m, bin_path, manifest_path);

    // Filters, in the reference's order and with its messages.
    std::vector<const dump_arg*> sel;
    for (const dump_arg& a : m.args) sel.push_back(&a);
    if (opt.task && !opt.task->empty()) {
        std::set<std::string> valid;
        for (const dump_arg& a : m.args) valid.insert(a.task_id);
        if (!valid.count(*opt.task)) {
            std::string sample;
            std::size_t n = 0;
            for (auto it = valid.begin(); it != valid.end() && n < 5; ++it, ++n) sample += (n ? ", " : "") + *it;
            throw input_error(fmt::format("--task {} not found. Valid task_ids (showing first {}): {}", *opt.task, n, sample));
        }
        std::erase_if(sel, [&](const dump_arg* a) { return a->task_id != *opt.task; });
    }
    if (opt.stage && !opt.stage->empty()) {
        if (*opt.stage != "before" && *opt.stage != "after") {
            throw input_error(fmt::format("--stage must be 'before' or 'after', got '{}'", *opt.stage));
        }
        const std::string full = *opt.stage == "before" ? "before_dispatch" : "after_completion";
        std::erase_if(sel, [&](const dump_arg* a) { return a->stage != full; });
    }
    if (opt.role && !opt.role->empty()) {
        if (*opt.role != "input" && *opt.role != "output" && *opt.role != "inout") {
            throw input_error(fmt::format("--role must be one of {{'input', 'output', 'inout'}}, got '{}'", *opt.role));
        }
        std::erase_if(sel, [&](const dump_arg* a) { return a->role != *opt.role; });
    }
    if (opt.arg) {
        // Valid values are compared as text and listed in text order, as in the reference.
        std::set<std::string> valid;
        for (const dump_arg* a : sel) valid.insert(std::to_string(a->arg_index));
        if (!valid.count(std::to_string(*opt.arg))) {
            std::string list;
            for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
            throw input_error(fmt::format("--arg {} not found in current selection. Valid arg_indices: {}", *opt.arg, list));
        }
        std::erase_if(sel, [&](const dump_arg* a) { return a->arg_index != *opt.arg; });
    }
    bool do_export = opt.do_export;
    if (opt.index) {
        if (*opt.index < 0 || static_cast<std::size_t>(*opt.index) >= m.args.size()) {
            throw input_error(fmt::format("--index {} out of range (0-{})", *opt.index,
                                          static_cast<long long>(m.args.size()) - 1));
        }
        sel = {&m.args[static_cast<std::size_t>(*opt.index)]};
        do_export = true;  // --index always exports
    }
    if (sel.empty()) {
        throw input_error("No args match the given filters.");
    }

    const std::string txt_dir = py_path_join(dir, "txt");
    if (do_export) {
        fs::create_directories(txt_dir, ec);
        if (ec) throw input_error(fmt::format("{}: cannot create: {}", txt_dir, ec.message()));
        for (const dump_arg* a : sel) {
            const std::string path = py_path_join(txt_dir, export_file_name(*a));
            json_file_writer out(path);
            write_export(out, *a, bin_path, manifest_path, static_cast<std::size_t>(a - m.args.data()));
            out.commit();
            fmt::print("Saved: {}\n", path);
        }
        fmt::print("\nExported {} arg(s) to {}\n", sel.size(), txt_dir);
        return 0;
    }
    const bool filtered = (opt.task && !opt.task->empty()) || (opt.stage && !opt.stage->empty()) ||
                          (opt.role && !opt.role->empty()) || opt.arg.has_value();
    if (filtered) fmt::print("Filtered: {}/{} args\nAdd --export to save these args to {}\n\n", sel.size(), m.args.size(), txt_dir);
    print_listing(sel);
    return 0;
}

}  // namespace dfx::convert::dump
