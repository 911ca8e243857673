// Fuzz target: args_dump/args_dump.json, the args dump manifest
// (dump::read_args_manifest), streamed one `args` entry at a time; then, as
// `dfx dump --export` does, every entry it accepts is exported: its payload
// read from args.bin at the manifest's bin_offset / bin_size (read_payload)
// and decoded by dtype and shape. The manifest is the fuzz input; args.bin is
// a fixed 256-byte file beside it, so offsets and sizes from the manifest
// point inside it, at its end or far past it.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "dfx/convert/dump/args_dump.hpp"
#include "dfx/convert/dump/dump_viewer.hpp"
#include "fuzz_support.hpp"

namespace dump = dfx::convert::dump;

namespace {

struct text_sink {  // write_export's output, kept small
    std::string text;
    void append(std::string_view s) {
        text.append(s);
        if (text.size() > (std::size_t{1} << 16)) text.clear();
    }
    void maybe_flush() {}
};

std::string write_payload(dfx::fuzz::input_file& beside) {
    const std::string path = beside.sibling("args.bin");
    unsigned char bytes[256];
    for (unsigned i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);  // NaNs and infs among them
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes, 1, sizeof bytes, f) != sizeof bytes || std::fclose(f) != 0) std::abort();
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("args_dump.json");
    static const std::string bin = write_payload(file);
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] {
        const dump::args_manifest m = dump::read_args_manifest(path);
        const std::optional<std::string> bin_path = m.bin_file ? std::optional<std::string>(bin) : std::nullopt;
        // An export error names the manifest or args.bin, whichever is at
        // fault (a payload the bin does not hold names the bin): both sit in
        // this capture's directory, which the message must name.
        const std::string capture_dir = std::filesystem::path(path).parent_path().string();
        for (std::size_t i = 0; i < m.args.size() && i < 64; ++i) {
            text_sink out;
            dfx::fuzz::expect_input_error_only(capture_dir, [&] { dump::write_export(out, m.args[i], bin_path, path, i); });
        }
    });
    return 0;
}
