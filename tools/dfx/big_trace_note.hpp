// big_trace_note: after writing traces, a note on stderr for each one the
// Perfetto UI will likely not open in a browser, with the ways that do.
//
//   dfx::cli::note_big_traces({output}, {.window = true, .perfetto_format = format == json}, stderr);
//
// prints, for the JSON trace of a 10^5-task capture:
//
//   Note: out/merged_swimlane.json is 854 MB: more than the Perfetto UI opens in
//   a browser. Open it with `trace_processor --httpd out/merged_swimlane.json` and
//   then https://ui.perfetto.dev, or cut it with `dfx swimlane --window
//   START:END` (its tasks run over 2000.280:369090.760 us) or --tasks, or write
//   it with --format perfetto (several times smaller); docs/converters.md,
//   "Opening a big trace".
//
// Why a size: the UI's in-browser engine has about 2 GB of memory (the
// browser's limit for a page), and Perfetto's docs put a protobuf trace's
// in-memory form at 2-4x its size; a 900 MB JSON trace is reported to crash
// it (google/perfetto issue #99). The stdout line "To visualize: Open
// https://ui.perfetto.dev/ ..." is the reference's and stays as it is; this
// note is extra, on stderr, and only for traces over the limit. Outputs
// that are not regular files of their own (stdout, /dev/null, a pipe,
// /dev/stdout) get none.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dfx::cli {

struct big_trace_limits {
    // A trace at least this big gets the note: 2 GB of browser memory over
    // the 4x at the top of Perfetto's 2-4x range. MB are 10^6 bytes, as the
    // note prints sizes.
    static constexpr std::uint64_t default_megabytes = 500;
    static constexpr std::uint64_t max_megabytes = 10'000'000;
    // DFX_UI_TRACE_LIMIT_MB=N (decimal digits only, 0 to max_megabytes) sets
    // the limit, for a browser that holds more or less (0: every trace gets
    // the note); any other value leaves the default, as the other DFX_*
    // knobs of docs/converters.md do.
    static constexpr const char* env = "DFX_UI_TRACE_LIMIT_MB";

    static std::uint64_t megabytes(const char* text) {
        std::uint64_t mb = 0;
        if (text == nullptr) return default_megabytes;
        const char* end = text + std::strlen(text);
        const auto [stop, error] = std::from_chars(text, end, mb);  // no sign, space or base prefix
        return error == std::errc{} && stop == end && text != end && mb <= max_megabytes ? mb : default_megabytes;
    }
    static std::uint64_t bytes() { return megabytes(std::getenv(env)) * 1'000'000; }
};

// What else the command that wrote the traces offers against their size.
struct big_trace_remedies {
    bool window = false;           // the trace is dfx swimlane's: --window / --tasks
    bool perfetto_format = false;  // the traces are JSON: --format perfetto
    std::string window_span = {};  // "START:END" of the capture's tasks, when known
};

// 8.69 GB, 854 MB: decimal units, as `ls --si` gives them.
inline std::string trace_size_text(std::uintmax_t bytes) {
    const double b = static_cast<double>(bytes);
    return b >= 1e9 ? fmt::format("{:.2f} GB", b / 1e9) : fmt::format("{:.0f} MB", b / 1e6);
}

// The path as a shell word to paste: as Python's shlex.quote writes it
// (quoted when it holds anything but letters, digits and "_-./+:,=@%").
inline std::string shell_word(const std::string& path) {
    const bool plain = !path.empty() && path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789_-./+:,=@%") == std::string::npos;
    if (plain) return path;
    std::string quoted = "'";
    for (const char c : path) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return quoted + "'";
}

// The size of the trace at `path` when it gets the note: a regular file of
// its own ("-" is stdout; a device path such as /dev/stdout or
// /proc/self/fd/1 may resolve to a regular file that is not the trace's)
// of at least the limit.
inline std::optional<std::uintmax_t> big_trace_size(const std::string& path) {
    if (path == "-" || path.starts_with("/dev/") || path.starts_with("/proc/")) return std::nullopt;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec || size < big_trace_limits::bytes()) return std::nullopt;
    return size;
}

inline void note_big_traces(const std::vector<std::string>& traces, const big_trace_remedies& remedies,
                            std::FILE* out) {
    for (const std::string& path : traces) {
        const auto size = big_trace_size(path);
        if (!size) continue;
        std::string cut;
        if (remedies.window)
            cut = remedies.window_span.empty()
                      ? ", or cut it with `dfx swimlane --window` (or --tasks)"
                      : fmt::format(", or cut it with `dfx swimlane --window START:END` (its tasks run over {} us) or "
                                    "--tasks",
                                    remedies.window_span);
        fmt::print(out,
                   "Note: {} is {}: more than the Perfetto UI opens in a browser. Open it with "
                   "`trace_processor --httpd {}` and then https://ui.perfetto.dev{}{}; docs/converters.md, "
                   "\"Opening a big trace\".\n",
                   path, trace_size_text(*size), shell_word(path), cut,
                   remedies.perfetto_format ? ", or write it with --format perfetto (several times smaller)" : "");
    }
}

}  // namespace dfx::cli
