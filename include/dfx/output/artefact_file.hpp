// artefact_file: how the host writes one artefact file. It goes through the
// one temp-and-rename writer (io/atomic_file.hpp) with the artefacts' policy:
// synced before the rename (a run cannot be repeated to make its artefacts
// again, unlike a converter's output), its directory created, and a failure
// raised as output_error, the one exception type artefact writers raise.
//
//   dfx::write_artefact(prefix / "pmu.csv", [&](std::FILE* f) { text_writer out(f); ...; return out.flush(); });
#pragma once

#include <filesystem>
#include <utility>

#include "dfx/io/atomic_file.hpp"
#include "dfx/output/output_error.hpp"

namespace dfx {

inline constexpr io::atomic_file_options artefact_file_options{.sync = io::sync_policy::fsync,
                                                               .create_directories = true};

// Writes `path` through `write(std::FILE*)` (false: it saw a failure) and
// renames it into place. Throws output_error naming the file.
template <class Write>
void write_artefact(const std::filesystem::path& path, Write&& write) {
    try {
        io::write_atomically(path, std::forward<Write>(write), artefact_file_options);
    } catch (const io::write_error& e) {
        throw output_error(e.what());
    }
}

}  // namespace dfx
