// fuzz_support: what every fuzz target shares.
//
//  - input_file: the readers take a path, not bytes, so each fuzz input is
//    written to a file private to this process (pid in the name), under
//    $DFX_FUZZ_SCRATCH (run_fuzzer.py sets it and removes it afterwards, even
//    after a crash), else /dev/shm (no disk traffic at thousands of runs a
//    second), else $TMPDIR or /tmp. Parallel fuzzers never share it.
//  - dev_null(): a FILE* for readers that print warnings, so the fuzzer's own
//    log stays readable.
//  - expect_contract(): the input_error contract (common/input_error.hpp): one
//    complete line that names the file. A message that breaks it is a finding
//    as much as a crash is: the CLI prints it as the only line the user sees.
//
// Only dfx::convert::input_error is caught by the targets. Any other exception
// escapes LLVMFuzzerTestOneInput, std::terminate aborts, and libFuzzer keeps
// the input as a crash: the reader let a non-input_error out.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "dfx/convert/common/input_error.hpp"

namespace dfx::fuzz {

class input_file {
public:
    // `name` is the file's base name (some readers care about it, e.g. name_map*.json).
    explicit input_file(std::string_view name) {
        std::string dir = "/dev/shm";
        if (const char* scratch = std::getenv("DFX_FUZZ_SCRATCH"); scratch && *scratch) {
            dir = scratch;
        } else if (access(dir.c_str(), W_OK) != 0) {
            const char* tmp = std::getenv("TMPDIR");
            dir = tmp && *tmp ? tmp : "/tmp";
        }
        dir_ = dir + "/dfx-fuzz-" + std::to_string(getpid());
        if (make_dir(dir_) != 0) die("cannot create the scratch directory " + dir_);
        path_ = dir_ + "/" + std::string(name);
    }
    ~input_file() {
        std::remove(path_.c_str());
        for (const std::string& f : siblings_) std::remove(f.c_str());
        rmdir(dir_.c_str());
    }
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;

    // Replaces the file's content with the fuzz input; returns its path.
    const std::string& write(const std::uint8_t* data, std::size_t size) {
        std::FILE* f = std::fopen(path_.c_str(), "wb");
        if (!f) die("cannot write " + path_);
        if (size != 0 && std::fwrite(data, 1, size, f) != size) die("short write to " + path_);
        if (std::fclose(f) != 0) die("cannot close " + path_);
        return path_;
    }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    // The process's scratch directory (for readers that also write beside their input).
    [[nodiscard]] const std::string& dir() const noexcept { return dir_; }
    // A file of the target's own beside the input, removed with it.
    std::string sibling(std::string_view name) {
        siblings_.push_back(dir_ + "/" + std::string(name));
        return siblings_.back();
    }

private:
    static int make_dir(const std::string& d) {  // 0 when it exists (a pid reused) or was made
        if (::mkdir(d.c_str(), 0700) == 0) return 0;
        return access(d.c_str(), W_OK);
    }
    [[noreturn]] static void die(const std::string& why) {
        std::fprintf(stderr, "fuzz harness: %s\n", why.c_str());
        std::abort();
    }
    std::string dir_;
    std::string path_;
    std::vector<std::string> siblings_;
};

// A sink for warnings (opened once, kept for the process).
inline std::FILE* dev_null() {
    static std::FILE* f = std::fopen("/dev/null", "w");
    return f;
}

// Aborts (a finding) when an input_error's message is not one line naming `path`.
inline void expect_contract(const dfx::convert::input_error& e, const std::string& path) {
    const std::string_view msg = e.what();
    const char* broken = msg.empty()                             ? "the message is empty"
                         : msg.find('\n') != std::string_view::npos ? "the message spans several lines"
                         : msg.find(path) == std::string_view::npos ? "the message does not name the file"
                                                                    : nullptr;
    if (!broken) return;
    std::fprintf(stderr, "input_error contract broken (%s): \"%.*s\"\n", broken, static_cast<int>(msg.size()),
                 msg.data());
    std::abort();
}

// Runs `read`; input_error is the expected outcome for bad input (checked
// against the contract), anything else propagates. Returns whether `read`
// finished without an error.
template <class Read>
bool expect_input_error_only(const std::string& path, Read&& read) {
    try {
        read();
        return true;
    } catch (const dfx::convert::input_error& e) {
        expect_contract(e, path);
        return false;
    }
}

}  // namespace dfx::fuzz
