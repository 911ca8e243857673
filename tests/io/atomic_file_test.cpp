// The one temp-and-rename writer (include/dfx/io/atomic_file.hpp): the
// target is replaced by a rename (a new inode, never a moment without the
// path), failures are errors naming the target, and no temporary outlives
// an error, an exception or SIGTERM.
#include <doctest/doctest.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dfx/io/atomic_file.hpp"
#include "dfx/io/temp_files.hpp"

namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed with what it holds.
struct scratch_dir {
    fs::path path;
    scratch_dir() {
        std::string tmpl = (fs::temp_directory_path() / "dfx-io-test-XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
        return out;
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

ino_t inode(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_ino;
}

bool put(std::FILE* f, const std::string& text) { return std::fputs(text.c_str(), f) >= 0; }

std::string temp_of(const fs::path& target) { return target.string() + ".tmp." + std::to_string(::getpid()); }

}  // namespace

TEST_CASE("commit renames over the target: a new inode, and the path is never missing") {
    scratch_dir dir;
    const fs::path target = dir.path / "deps.json";
    std::ofstream(target) << "old";
    // Held open, the old file keeps its inode (a freed one could be reused)
    // and shows whether it was rewritten in place.
    std::FILE* old_file = std::fopen(target.c_str(), "rb");
    REQUIRE(old_file != nullptr);
    const ino_t before = inode(target);

    // A reader polls the path the whole time; an unlink-then-create would
    // show as a failed stat in some of its polls (the window is short: that
    // is a sample). inotify sees every unlink of the target (IN_DELETE); a
    // rename over it is IN_MOVED_TO alone: that is exact.
    const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    REQUIRE(watch >= 0);
    REQUIRE(::inotify_add_watch(watch, dir.path.c_str(), IN_DELETE | IN_MOVED_TO) >= 0);
    std::atomic<bool> stop{false};
    std::atomic<long> polls{0}, missing{0};
    std::thread reader([&] {
        struct stat st {};
        while (!stop.load()) {
            if (::stat(target.c_str(), &st) != 0) missing.fetch_add(1);
            polls.fetch_add(1);
        }
    });
    for (int i = 0; i < 1000; ++i)
        dfx::io::write_atomically(target, [&](std::FILE* f) { return put(f, "new " + std::to_string(i)); });
    stop.store(true);
    reader.join();
    int deleted = 0, moved_in = 0;
    alignas(inotify_event) char events[1 << 16];
    for (ssize_t n; (n = ::read(watch, events, sizeof events)) > 0;) {
        for (char* p = events; p < events + n;) {
            const auto* e = reinterpret_cast<const inotify_event*>(p);
            if (e->len && std::string(e->name) == "deps.json") {
                if (e->mask & IN_DELETE) ++deleted;
                if (e->mask & IN_MOVED_TO) ++moved_in;
            }
            p += sizeof(inotify_event) + e->len;
        }
    }
    ::close(watch);
    CHECK(deleted == 0);
    CHECK(moved_in >= 1);  // identical events queued back to back are merged

    CHECK(polls.load() > 0);
    CHECK(missing.load() == 0);
    CHECK(inode(target) != before);
    char old_text[8] = {};
    CHECK(std::fread(old_text, 1, sizeof old_text, old_file) == 3);
    CHECK(std::string(old_text) == "old");
    std::fclose(old_file);
    CHECK(slurp(target) == "new 999");
    CHECK(dir.names() == std::vector<std::string>{"deps.json"});  // no temporary left
}

TEST_CASE("until commit the target keeps its old content; the temporary sits beside it") {
    scratch_dir dir;
    const fs::path target = dir.path / "pmu.csv";
    std::ofstream(target) << "old";
    {
        dfx::io::atomic_file out(target, {.sync = dfx::io::sync_policy::fsync});
        CHECK(out.temp_path() == fs::path(temp_of(target)));
        CHECK(dfx::io::temp_files::registered(temp_of(target)));
        CHECK(put(out.stream(), "new"));
        CHECK(slurp(target) == "old");
        out.commit();
        CHECK_FALSE(dfx::io::temp_files::registered(temp_of(target)));
    }
    CHECK(slurp(target) == "new");
    {
        dfx::io::atomic_file out(target);  // never committed: the target stays
        CHECK(::write(out.fd(), "lost", 4) == 4);
    }
    CHECK(slurp(target) == "new");
    CHECK(dir.names() == std::vector<std::string>{"pmu.csv"});
    CHECK_FALSE(dfx::io::temp_files::registered(temp_of(target)));
}

TEST_CASE("an exception while writing removes the temporary and leaves the target") {
    scratch_dir dir;
    const fs::path target = dir.path / "chip_swimlane_records.json";
    std::ofstream(target) << "old";
    bool was_registered = false;
    CHECK_THROWS_WITH_AS(dfx::io::write_atomically(target,
                                                   [&](std::FILE* f) -> bool {
                                                       put(f, "half");
                                                       std::fflush(f);
                                                       was_registered = dfx::io::temp_files::registered(temp_of(target));
                                                       throw std::runtime_error("formatting failed");
                                                   }),
                         "formatting failed", std::runtime_error);
    CHECK(was_registered);
    CHECK_FALSE(dfx::io::temp_files::registered(temp_of(target)));
    CHECK(slurp(target) == "old");
    CHECK(dir.names() == std::vector<std::string>{"chip_swimlane_records.json"});
}

TEST_CASE("a directory that cannot be written: an error naming the target, nothing left") {
    scratch_dir dir;
    // A parent that is a regular file fails for everyone, root included.
    std::ofstream(dir.path / "plain") << "x";
    const fs::path under_file = dir.path / "plain" / "deps.json";
    CHECK_THROWS_WITH_AS(dfx::io::write_atomically(under_file, [&](std::FILE* f) { return put(f, "x"); }),
                         (under_file.string() + ": cannot create: Not a directory").c_str(), dfx::io::write_error);
    CHECK(dir.names() == std::vector<std::string>{"plain"});

    const fs::path ro = dir.path / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    const fs::path target = ro / "deps.json";
    if (::access(ro.c_str(), W_OK) == 0) {  // root: permissions do not stop it
        MESSAGE("running with CAP_DAC_OVERRIDE: the read-only directory case cannot fail here");
        return;
    }
    CHECK_THROWS_WITH_AS(dfx::io::write_atomically(target, [&](std::FILE* f) { return put(f, "x"); }),
                         (target.string() + ": cannot create: Permission denied").c_str(), dfx::io::write_error);
    CHECK(fs::is_empty(ro));
    CHECK_FALSE(dfx::io::temp_files::registered(temp_of(target)));
}

TEST_CASE("a write that fails (file too large) is an error naming the target; the temporary is removed") {
    // RLIMIT_FSIZE makes every write past the limit fail with EFBIG on any
    // file system and for root too, as ENOSPC would on a full disk.
    scratch_dir dir;
    const fs::path target = dir.path / "args.bin";
    std::ofstream(target) << "old";
    rlimit saved{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 4096;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string message;
    try {
        dfx::io::write_atomically(target, [&](std::FILE* f) { return put(f, std::string(1 << 16, 'x')); },
                                  {.sync = dfx::io::sync_policy::fsync});
    } catch (const dfx::io::write_error& e) {
        message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    CHECK(message == target.string() + ": cannot write: File too large");
    CHECK(slurp(target) == "old");
    CHECK(dir.names() == std::vector<std::string>{"args.bin"});
}

TEST_CASE("a failure seen only at the flush: /dev/full is written in place and the error names it") {
    struct stat st {};
    if (::stat("/dev/full", &st) != 0) return;
    CHECK_THROWS_WITH_AS(dfx::io::write_atomically("/dev/full", [&](std::FILE* f) { return put(f, "{}"); }),
                         "/dev/full: cannot write: No space left on device", dfx::io::write_error);
    REQUIRE(::stat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));  // the device node itself was not replaced
    dfx::io::write_atomically("/dev/null", [&](std::FILE* f) { return put(f, "{}"); });
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
}

TEST_CASE("SIGTERM while a temporary is open removes it, and the process still dies of SIGTERM") {
    scratch_dir dir;
    const fs::path target = dir.path / "merged_swimlane.json";
    std::ofstream(target) << "old";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        dfx::io::remove_temp_files_on_signal();
        dfx::io::atomic_file out(target);
        (void)!::write(out.fd(), "partial", 7);
        ::raise(SIGTERM);
        ::_exit(0);  // not reached
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(slurp(target) == "old");
    CHECK(dir.names() == std::vector<std::string>{"merged_swimlane.json"});
}

TEST_CASE("missing parent directories are created when asked, else an error") {
    scratch_dir dir;
    const fs::path target = dir.path / "a" / "b" / "scope_stats.jsonl";
    CHECK_THROWS_AS(dfx::io::write_atomically(target, [&](std::FILE* f) { return put(f, "x"); }), dfx::io::write_error);
    dfx::io::write_atomically(target, [&](std::FILE* f) { return put(f, "x"); }, {.create_directories = true});
    CHECK(slurp(target) == "x");
}
