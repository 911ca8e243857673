// Artefacts are written to a temporary file beside the target and renamed
// into place, so a crash never leaves a truncated file that looks valid.
// Devices and pipes (/dev/null, a FIFO) are written in place.
//
//   dfx::write_atomically(path, [&](std::FILE* out) { ... });   // throws output_error
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

#include "dfx/output/output_error.hpp"

namespace dfx {

template <class Write>
void write_atomically(const std::filesystem::path& path, Write&& write) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec) throw output_error(path.string() + ": cannot create its directory: " + ec.message());

    // A device or pipe (-o /dev/null, a FIFO) is written in place: renaming a
    // temporary over it would replace the node itself.
    const bool in_place = fs::exists(path, ec) && !fs::is_regular_file(path, ec);
    const fs::path temp = in_place ? path : fs::path(path.string() + ".tmp." + std::to_string(::getpid()));
    const auto discard = [&] {
        if (!in_place) fs::remove(temp, ec);
    };
    std::FILE* out = std::fopen(temp.c_str(), "wb");
    if (!out) throw output_error(path.string() + ": cannot write: " + std::strerror(errno));
    bool ok = false;
    try {
        ok = write(out);
    } catch (...) {
        std::fclose(out);
        discard();
        throw;
    }
    ok = std::fflush(out) == 0 && ok;
    ok = (in_place || ::fsync(::fileno(out)) == 0) && ok;
    ok = std::fclose(out) == 0 && ok;
    if (!ok) {
        const std::string reason = errno ? std::strerror(errno) : "write failed";
        discard();
        throw output_error(path.string() + ": cannot write: " + reason);
    }
    if (in_place) return;
    fs::rename(temp, path, ec);
    if (ec) {
        discard();
        throw output_error(path.string() + ": cannot move into place: " + ec.message());
    }
}

}  // namespace dfx
