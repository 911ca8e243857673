// Running dfx-sim from a test: one shared helper for sim_e2e_test.cpp and
// sim_stream_test.cpp (one executable, two test files).
//
//     const sim_test::sim_run r = sim_test::run_sim("chain_all", {"--workload", "chain", ...});
//     CHECK(r.status == 0);
//     CHECK(sim_test::contains(r.out, "kernel check: OK"));
//     ... read r.outputs() / "deps.json" ...
//
// Each run gets a fresh work directory under scratch() (per process, so the
// groups meson runs in parallel never share one; removed at exit); stdout and
// stderr are kept in files there and read back whole.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/scratch_dir.hpp"

namespace sim_test {

namespace fs = std::filesystem;

struct sim_run {
    int status = -1;  // the exit status; -1 when killed by a signal
    std::string out, err;
    fs::path work;
    fs::path outputs() const { return work / "dfx_outputs"; }
};

inline std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One word for /bin/sh, whatever it holds.
inline std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The process's scratch directory, removed with the runs' work directories
// when the process exits (DFX_KEEP_TEST_DIRS=1 keeps it).
inline const fs::path& scratch() {
    static const test_support::scratch_dir dir;
    return dir.path();
}

// Runs dfx-sim with a fresh work dir named `name` (unless `keep`).
inline sim_run run_sim(const std::string& name, const std::vector<std::string>& args, bool keep = false) {
    sim_run r;
    r.work = scratch() / name;
    if (!keep) fs::remove_all(r.work);
    fs::create_directories(r.work);
    std::string cmd = quote(DFX_SIM_EXE) + " --work-dir " + quote(r.work.string());
    // Appended piecewise: g++ 12 at -O3 warns falsely (-Wrestrict, GCC bug 105329)
    // inside libstdc++ on `"literal" + std::string&&`.
    for (const auto& a : args) {
        cmd += ' ';
        cmd += quote(a);
    }
    cmd += " > " + quote((r.work / "stdout.txt").string()) + " 2> " + quote((r.work / "stderr.txt").string());
    const int status = std::system(cmd.c_str());
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(r.work / "stdout.txt");
    r.err = read_text(r.work / "stderr.txt");
    return r;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace sim_test
