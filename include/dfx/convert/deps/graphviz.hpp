// graphviz: lay a DOT graph out as SVG with a Graphviz engine binary
// (dot, sfdp, fdp, neato, circo, twopi), run as `<engine> -Tsvg`.
//
// The DOT text and the SVG go through temporary files rather than pipes: the
// engine reads all of its input before it writes, and files avoid the
// deadlock a writer-then-reader over two pipes invites for large graphs.
// A missing engine is a clear one-line error (the reference dies with a
// traceback), not a crash; a failing engine reports its own stderr.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

extern char** environ;

namespace dfx::convert::deps {

// The layout step failed: no engine on PATH, or the engine rejected the graph.
class graphviz_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline bool is_graphviz_engine(std::string_view e) {
    return e == "dot" || e == "neato" || e == "sfdp" || e == "fdp" || e == "circo" || e == "twopi";
}

// The executable `name` resolves to on PATH (like shutil.which), if any.
inline std::optional<std::string> which(const std::string& name) {
    auto executable = [](const std::string& p) {
        struct stat st{};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) return executable(name) ? std::optional<std::string>(name) : std::nullopt;
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "";
    while (true) {
        const std::size_t colon = rest.find(':');
        std::string dir(rest.substr(0, colon));
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + name;
        if (executable(candidate)) return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        rest.remove_prefix(colon + 1);
    }
}

namespace detail {

// A temporary file removed when this goes out of scope.
class temp_file {
public:
    explicit temp_file(const char* tag) {
        std::string pattern = (std::filesystem::temp_directory_path() / ("dfx-" + std::string(tag) + "-XXXXXX")).string();
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0) throw graphviz_error(std::string("cannot create a temporary file: ") + std::strerror(errno));
        ::close(fd);
        path_ = pattern;
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() { std::remove(path_.c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

inline std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace detail

// Runs `<engine> -Tsvg` on `dot` and returns the SVG document text.
inline std::string render_svg(const std::string& dot, const std::string& engine) {
    const std::optional<std::string> exe = which(engine);
    if (!exe)
        throw graphviz_error("Graphviz '" + engine +
                             "' not found on PATH. Install graphviz (apt install graphviz / brew install graphviz), "
                             "or use --format text");
    detail::temp_file in("dot"), out("svg"), err("err");
    {
        std::ofstream f(in.path(), std::ios::binary);
        f << dot;
        if (!f) throw graphviz_error("cannot write the DOT input to " + in.path());
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
    std::string arg_engine = engine, arg_format = "-Tsvg", arg_input = in.path();
    char* argv[] = {arg_engine.data(), arg_format.data(), arg_input.data(), nullptr};
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, exe->c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw graphviz_error("cannot run " + *exe + ": " + std::strerror(rc));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw graphviz_error("waiting for " + engine + ": " + std::strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string msg = detail::read_all(err.path());
        while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) msg.pop_back();
        for (char& c : msg)
            if (c == '\n') c = ' ';  // keep the error on one line
        const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                  : "signal " + std::to_string(WTERMSIG(status));
        throw graphviz_error(engine + " -Tsvg failed (" + how + ")" + (msg.empty() ? "" : ": " + msg));
    }
    return detail::read_all(out.path());
}

}  // namespace dfx::convert::deps
