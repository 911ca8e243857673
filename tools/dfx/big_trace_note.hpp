// big_trace_note: after writing traces, a note on stderr for each one the
// Perfetto UI will likely not open in a browser, with the ways that do.
//
//   dfx::cli::note_big_traces({output}, {.window = true, .perfetto_format = format == json}, stderr);
//
// prints, for the JSON trace of a 10^5-task capture:
//
//   Note: out/merged_swimlane.json is 854 MB: more than the Perfetto UI opens in
//   a browser. Open it with `trace_processor --httpd out/merged_swimlane.json` and
//   then https://ui.perfetto.dev, or cut it with `dfx swimlane --window` (or
//   --tasks), or write it with --format perfetto (several times smaller);
//   docs/converters.md, "Opening a big trace".
//
// Why a size: the UI's in-browser engine has about 2 GB of memory (the
// browser's limit for a page), and Perfetto's docs put a protobuf trace's
// in-memory form at 2-4x its size; a 900 MB JSON trace is reported to crash
// it (google/perfetto issue #99). The stdout line "To visualize: Open
// https://ui.perfetto.dev/ ..." is the reference's and stays as it is; this
// note is extra, on stderr, and only for traces over the limit. Outputs
// that are not regular files (stdout, /dev/null, a pipe) get none.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace dfx::cli {

struct big_trace_limits {
    // A trace at least this big gets the note: 2 GB of browser memory over
    // the 4x at the top of Perfetto's 2-4x range.
    static constexpr std::uint64_t default_megabytes = 512;
    // DFX_UI_TRACE_LIMIT_MB=N (whole MiB, 0 to 2^20) sets the limit, for a
    // browser that holds more or less (0: every trace gets the note); a value
    // out of range or not a number leaves the default, as the other DFX_*
    // knobs of docs/converters.md do.
    static constexpr const char* env = "DFX_UI_TRACE_LIMIT_MB";

    static std::uint64_t bytes() {
        const char* text = std::getenv(env);
        std::uint64_t mb = default_megabytes;
        if (text != nullptr && *text != '\0') {
            char* end = nullptr;
            const unsigned long long value = std::strtoull(text, &end, 10);
            if (*end == '\0' && *text != '-' && value <= (1ull << 20)) mb = value;
        }
        return mb << 20;
    }
};

// What else the command that wrote the traces offers against their size.
struct big_trace_remedies {
    bool window = false;           // the trace is dfx swimlane's: --window / --tasks
    bool perfetto_format = false;  // the traces are JSON: --format perfetto
};

// 8.69 GB, 854 MB: the size as `ls -h`'s reader would say it (decimal units).
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

inline void note_big_traces(const std::vector<std::string>& traces, big_trace_remedies remedies, std::FILE* out) {
    const std::uint64_t limit = big_trace_limits::bytes();
    for (const std::string& path : traces) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) continue;
        const std::uintmax_t size = std::filesystem::file_size(path, ec);
        if (ec || size < limit) continue;
        fmt::print(out,
                   "Note: {} is {}: more than the Perfetto UI opens in a browser. Open it with "
                   "`trace_processor --httpd {}` and then https://ui.perfetto.dev{}{}; docs/converters.md, "
                   "\"Opening a big trace\".\n",
                   path, trace_size_text(size), shell_word(path),
                   remedies.window ? ", or cut it with `dfx swimlane --window` (or --tasks)" : "",
                   remedies.perfetto_format ? ", or write it with --format perfetto (several times smaller)" : "");
    }
}

}  // namespace dfx::cli
