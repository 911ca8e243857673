// A run's artefacts land as one set: written into a staging directory beside
// the output directory, then swapped in with one atomic rename, so a crash at
// any moment leaves either the previous complete set or the new one, never a
// mix of the two.
//
//   dfx::artefact_set set("dfx_outputs");   // cleans what killed runs left, creates the staging dir
//   write_records(set.dir()); write_deps(set.dir()); ...
//   set.commit();                           // dfx_outputs now holds the new set
//
// The staging directory is `<prefix>.dfx-staging-<pid>`. commit() first
// carries over (hard links) every entry of the current prefix the new set
// does not replace, so a second pass into the same directory (the two-pass
// workflow: graph, then timing) keeps the first pass's files; then it
// exchanges the two directories with renameat2(RENAME_EXCHANGE) and removes
// the old one. Where the file system cannot exchange, the old directory is
// renamed aside first (the prefix is then briefly absent, never mixed).
// A set that is never committed is removed by the destructor; one left by a
// killed process is removed by the next artefact_set on the same prefix.
// Temporary files (`*.tmp.<pid>`) of killed writers are not carried over.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

#include "dfx/output/output_error.hpp"

namespace dfx {

namespace detail {

// `<name>.tmp.<digits>`: a temporary a killed writer left behind.
inline bool is_stale_temp(std::string_view name) {
    const auto dot = name.rfind(".tmp.");
    if (dot == std::string_view::npos || dot + 5 == name.size()) return false;
    for (const char c : name.substr(dot + 5))
        if (c < '0' || c > '9') return false;
    return true;
}

// Hard-links (or copies, across file systems) `from` into `to` where `to`
// has no entry of that name, recursively.
inline void carry_over(const std::filesystem::path& from, const std::filesystem::path& to) {
    namespace fs = std::filesystem;
    for (const fs::directory_entry& e : fs::directory_iterator(from)) {
        const fs::path target = to / e.path().filename();
        if (is_stale_temp(e.path().filename().string())) continue;
        std::error_code ec;
        const fs::file_status st = e.symlink_status();
        if (fs::is_directory(st)) {
            if (!fs::exists(fs::symlink_status(target, ec))) fs::create_directory(target);
            if (fs::is_directory(fs::symlink_status(target, ec))) carry_over(e.path(), target);
            continue;
        }
        if (fs::exists(fs::symlink_status(target, ec))) continue;  // replaced by the new set
        if (fs::is_symlink(st)) {
            fs::copy_symlink(e.path(), target);
        } else {
            fs::create_hard_link(e.path(), target, ec);
            if (ec) fs::copy_file(e.path(), target);
        }
    }
}

}  // namespace detail

class artefact_set {
public:
    explicit artefact_set(std::filesystem::path prefix) : prefix_(std::move(prefix)) {
        namespace fs = std::filesystem;
        if (prefix_.empty()) throw output_error("the output directory is empty");
        prefix_ = prefix_.lexically_normal();
        if (!prefix_.has_filename()) prefix_ = prefix_.parent_path();  // "dir/" -> "dir"
        std::error_code ec;
        const fs::file_status st = fs::status(prefix_, ec);
        if (fs::exists(st) && !fs::is_directory(st))
            detail::throw_output_error({prefix_.native(), ": exists and is not a directory"});
        const fs::path parent = prefix_.has_parent_path() ? prefix_.parent_path() : fs::path(".");
        fs::create_directories(parent, ec);
        if (ec) detail::throw_output_error({parent.native(), ": cannot create: ", ec.message()});
        remove_stale(parent);
        staging_ = fs::path(prefix_.string() + staging_tag + std::to_string(::getpid()));
        fs::remove_all(staging_, ec);  // a reused pid's leftovers
        if (!fs::create_directory(staging_, ec) || ec)
            detail::throw_output_error({staging_.native(), ": cannot create the staging directory: ", ec.message()});
    }
    artefact_set(const artefact_set&) = delete;
    artefact_set& operator=(const artefact_set&) = delete;
    ~artefact_set() {
        std::error_code ec;
        if (!committed_) std::filesystem::remove_all(staging_, ec);
    }

    const std::filesystem::path& prefix() const noexcept { return prefix_; }
    // Where the writers write until commit().
    const std::filesystem::path& dir() const noexcept { return staging_; }
    // Where a file written under dir() is after commit().
    std::filesystem::path final_path(const std::filesystem::path& staged) const {
        return staged.empty() ? staged : prefix_ / staged.lexically_relative(staging_);
    }

    // Swaps the staged set in. Nothing written (an empty staging directory)
    // leaves the prefix untouched. Throws output_error.
    void commit() {
        namespace fs = std::filesystem;
        if (committed_) return;
        committed_ = true;
        std::error_code ec;
        if (fs::is_empty(staging_, ec)) {
            fs::remove(staging_, ec);
            return;
        }
        try {
            if (fs::is_directory(prefix_, ec)) detail::carry_over(prefix_, staging_);
        } catch (const fs::filesystem_error& e) {
            detail::throw_output_error({prefix_.native(), ": cannot carry the previous files over: ", e.what()});
        }
        if (!fs::exists(prefix_, ec)) {
            rename_or_throw(staging_, prefix_);
            return;
        }
        if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, prefix_.c_str(), RENAME_EXCHANGE) != 0) {
            if (errno != EINVAL && errno != ENOSYS)
                detail::throw_output_error({prefix_.native(), ": cannot swap the new artefacts in: ", std::strerror(errno)});
            // No exchange on this file system: move the old set aside, then the new one in.
            const fs::path aside(prefix_.string() + old_tag + std::to_string(::getpid()));
            rename_or_throw(prefix_, aside);
            rename_or_throw(staging_, prefix_);
            fs::remove_all(aside, ec);
            return;
        }
        fs::remove_all(staging_, ec);  // now the previous set
    }

private:
    static constexpr const char* staging_tag = ".dfx-staging-";
    static constexpr const char* old_tag = ".dfx-old-";

    static void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to) {
        std::error_code ec;
        std::filesystem::rename(from, to, ec);
        if (ec) detail::throw_output_error({to.native(), ": cannot move the artefacts into place: ", ec.message()});
    }

    // `<prefix>.dfx-staging-<pid>` / `.dfx-old-<pid>` of processes that are gone.
    void remove_stale(const std::filesystem::path& parent) const {
        namespace fs = std::filesystem;
        const std::string base = prefix_.filename().string();
        std::error_code ec;
        for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            for (const char* tag : {staging_tag, old_tag}) {
                const std::string head = base + std::string(tag);
                if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0) continue;
                const std::string pid = name.substr(head.size());
                if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
                const auto p = static_cast<pid_t>(std::stol(pid));
                if (p == ::getpid() || (::kill(p, 0) != 0 && errno == ESRCH)) {
                    std::error_code rm;
                    fs::remove_all(it->path(), rm);
                }
            }
        }
    }

    std::filesystem::path prefix_;
    std::filesystem::path staging_;
    bool committed_ = false;
};

}  // namespace dfx
