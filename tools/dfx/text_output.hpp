// The one-document outputs of `dfx report` and `dfx compare`: the text,
// JSON, CSV or HTML they render, to stdout or to a file written whole
// (temp and rename, so a failed run leaves no half page).
//
//   const bool page = dfx::cli::ends_with(output, ".html");
//   dfx::cli::write_text_output(output, text);   // "" or "-": stdout
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/json_writer.hpp"

namespace dfx::cli {

inline bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

inline void write_text_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        fmt::print("{}", text);
        return;
    }
    dfx::convert::json_file_writer out(path);
    out.append(text);
    out.commit();
}

}  // namespace dfx::cli
