// Artefacts are written to a temporary file beside the target and renamed
// into place, so a crash never leaves a truncated file that looks valid.
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

    const fs::path temp = path.string() + ".tmp." + std::to_string(::getpid());
    std::FILE* out = std::fopen(temp.c_str(), "wb");
    if (!out) throw output_error(path.string() + ": cannot write: " + std::strerror(errno));
    bool ok = false;
    try {
        ok = write(out);
    } catch (...) {
        std::fclose(out);
        fs::remove(temp, ec);
        throw;
    }
    ok = std::fflush(out) == 0 && ok;
    ok = ::fsync(::fileno(out)) == 0 && ok;
    ok = std::fclose(out) == 0 && ok;
    if (!ok) {
        const std::string reason = errno ? std::strerror(errno) : "write failed";
        fs::remove(temp, ec);
        throw output_error(path.string() + ": cannot write: " + reason);
    }
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw output_error(path.string() + ": cannot move into place: " + ec.message());
    }
}

}  // namespace dfx
