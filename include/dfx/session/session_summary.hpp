// What a session's finish() returns: per enabled collector its counts, the
// files it wrote and why it wrote nothing when it did not, and the name map.
//
//   dfx::session_summary summary = dfx_session.finish();
//   if (const dfx::collector_outcome* deps = summary.find("dep_gen"); deps && !deps->complete())
//       std::fprintf(stderr, "%s\n", deps->not_written.c_str());
//   dfx::write_session_summary(stderr, summary);   // one line per collector
//
// Fixed shapes (at most five outcomes, at most two files each) rather than
// vectors, so a runtime's host translation unit compiles no vector of
// outcomes or of paths (docs/embedding.md, "What the host TU costs to compile").
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "dfx/output/output_error.hpp"
#include "dfx/transport/accounting.hpp"

namespace dfx {

// The files one collector wrote: at most two (the args dump's JSON and
// args.bin). A fixed shape rather than a vector, so a host translation unit
// compiles no vector of paths (docs/embedding.md, "What the host TU costs").
class artefact_paths {
public:
    static constexpr std::size_t capacity = 2;

    // An empty path is not a file: nothing is added.
    void add(std::filesystem::path p) {
        if (p.empty()) return;
        if (count_ == capacity) throw output_error("dfx session: more than two files for one collector");
        paths_[count_++] = std::move(p);
    }
    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    const std::filesystem::path& operator[](std::size_t i) const noexcept { return paths_[i]; }
    const std::filesystem::path& front() const noexcept { return paths_[0]; }
    const std::filesystem::path* begin() const noexcept { return paths_; }
    const std::filesystem::path* end() const noexcept { return paths_ + count_; }
    std::filesystem::path* begin() noexcept { return paths_; }
    std::filesystem::path* end() noexcept { return paths_ + count_; }

private:
    std::filesystem::path paths_[capacity];
    std::size_t count_ = 0;
};

// One collector's outcome.
struct collector_outcome {
    std::string_view collector;   // "chip swimlane", "dep_gen", "scope stats", "args dump", "PMU"
    accounting_totals counts;     // produced, collected, dropped, lost
    artefact_paths files;         // what it wrote
    std::string not_written;      // why it wrote nothing, when it did not

    bool complete() const noexcept { return counts.complete() && not_written.empty(); }
};

// The enabled collectors' outcomes, in the order above: at most one each.
class collector_outcomes {
public:
    static constexpr std::size_t capacity = 5;

    collector_outcome& add() {
        if (count_ == capacity) throw output_error("dfx session: more than five collectors");
        return outcomes_[count_++];
    }
    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    const collector_outcome& operator[](std::size_t i) const noexcept { return outcomes_[i]; }
    const collector_outcome* begin() const noexcept { return outcomes_; }
    const collector_outcome* end() const noexcept { return outcomes_ + count_; }
    collector_outcome* begin() noexcept { return outcomes_; }
    collector_outcome* end() noexcept { return outcomes_ + count_; }

private:
    collector_outcome outcomes_[capacity];
    std::size_t count_ = 0;
};

struct session_summary {
    collector_outcomes collectors;    // the enabled ones, in the order above
    std::filesystem::path name_map;   // empty: not written (no swimlane and no dep_gen)

    bool complete() const noexcept {
        for (const auto& c : collectors)
            if (!c.complete()) return false;
        return true;
    }
    const collector_outcome* find(std::string_view name) const noexcept {
        for (const auto& c : collectors)
            if (c.collector == name) return &c;
        return nullptr;
    }
};

// One line per collector: what it wrote, or why it wrote nothing.
inline void write_session_summary(std::FILE* out, const session_summary& s) {
    for (const auto& c : s.collectors) {
        std::string what = c.not_written;
        if (what.empty() && c.files.empty()) what = "nothing captured, nothing written";
        for (const auto& f : c.files) what += (what.empty() ? "wrote " : ", ") + f.string();
        std::fprintf(out, "%.*s: %s\n", static_cast<int>(c.collector.size()), c.collector.data(), what.c_str());
    }
    if (!s.name_map.empty()) std::fprintf(out, "name map: wrote %s\n", s.name_map.string().c_str());
}

}  // namespace dfx
