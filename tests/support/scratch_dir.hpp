// scratch_dir: a private temporary directory for tests that need files,
// removed with everything in it when the object goes (DFX_KEEP_TEST_DIRS=1
// keeps it and prints its path, to look into a failure).
//
//     test_support::scratch_dir dir;                    // $TMPDIR/dfx-test-XXXXXX
//     const std::string in = dir.write("deps.json", "{}");
//     CHECK(test_support::slurp(in) == "{}");
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace test_support {

class scratch_dir {
public:
    scratch_dir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "dfx-test-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~scratch_dir() {
        if (const char* keep = std::getenv("DFX_KEEP_TEST_DIRS"); keep != nullptr && *keep != '\0') {
            std::cerr << "scratch directory kept: " << path_.string() << '\n';
            return;
        }
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;

    // Writes `text` to <dir>/<name> and returns the full path.
    std::string write(std::string_view name, std::string_view text) const {
        const auto p = path_ / std::string(name);
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    std::string file(std::string_view name) const { return (path_ / std::string(name)).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Reads a whole file (test outputs are small).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace test_support
