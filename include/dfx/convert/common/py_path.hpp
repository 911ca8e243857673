// py_path: paths printed the way Python's pathlib prints them, so messages and
// text outputs ("source_deps_json: ...", "Saved: ...") match the reference
// tools line for line.
//
//   py_path("./a//b/")      -> "a/b"      (str(Path(...)))
//   py_path_join("a", "x")  -> "a/x"      (str(Path(a) / x))
//   py_path_join(".", "x")  -> "x"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dfx::convert {

// PurePosixPath normalisation: repeated slashes collapse, "." components go,
// a trailing slash goes; ".." is kept (pathlib does not resolve it).
inline std::string py_path(std::string_view p) {
    if (p.empty()) return ".";
    const bool absolute = p.front() == '/';
    // POSIX keeps exactly two leading slashes; pathlib follows that.
    const bool two_slashes = p.size() >= 2 && p[0] == '/' && p[1] == '/' && (p.size() == 2 || p[2] != '/');
    std::vector<std::string_view> parts;
    std::size_t i = 0;
    while (i < p.size()) {
        const std::size_t j = p.find('/', i);
        const std::string_view part = p.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
        if (!part.empty() && part != ".") parts.push_back(part);
        if (j == std::string_view::npos) break;
        i = j + 1;
    }
    std::string out = two_slashes ? "//" : absolute ? "/" : "";
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k) out += '/';
        out += parts[k];
    }
    return out.empty() ? "." : out;
}

inline std::string py_path_join(std::string_view dir, std::string_view name) {
    const std::string d = py_path(dir);
    if (!name.empty() && name.front() == '/') return py_path(name);
    return py_path(d == "." ? std::string(name) : d + "/" + std::string(name));
}

// str(Path(p).parent)
inline std::string py_path_parent(std::string_view p) {
    const std::string n = py_path(p);
    const std::size_t slash = n.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return n.substr(0, slash);
}

}  // namespace dfx::convert
