// What every dfx subcommand shares: the two kinds of failure (exit codes in
// docs/converters.md) and the directory-or-file input rule.
//
//   throw dfx::cli::usage_error("--report must be a filename");     // exit 2
//   throw dfx::convert::input_error(path + ": ...");                // exit 1
//   const std::string records = dfx::cli::file_in(arg, {dfx::schema::records_file});
//
// main() prints either as one line, "dfx <command>: error: <message>".
#pragma once

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dfx/schema/artefact_names.hpp"

namespace dfx::cli {

// A command line that cannot be run (exit 2); bad input is input_error (exit 1).
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `arg` itself, or, when it is a directory (a dfx_outputs tree or a run
// directory), the first of `names` (paths relative to it) that exists there;
// the first name when none does, so the error names the file expected.
inline std::string file_in(const std::string& arg, std::initializer_list<std::string_view> names) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (arg.empty() || !fs::is_directory(arg, ec)) return arg;
    for (const std::string_view name : names)
        if (fs::exists(fs::path(arg) / name, ec)) return (fs::path(arg) / name).string();
    return (fs::path(arg) / *names.begin()).string();
}

}  // namespace dfx::cli
