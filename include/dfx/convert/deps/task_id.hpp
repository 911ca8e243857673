// task_id: how the deps views print a PTO2 task id `(ring_id << 32) | local_id`
// (dep-gen.md §1.3, §3.4).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace dfx::convert::deps {

inline std::uint32_t ring_of(std::uint64_t raw) { return static_cast<std::uint32_t>((raw >> 32) & 0xFF); }
inline std::uint32_t local_of(std::uint64_t raw) { return static_cast<std::uint32_t>(raw & 0xFFFFFFFFu); }

// A graph whose tasks are all on ring 0 prints bare local ids; as soon as one
// task is on another ring, every task prints as `(ring, local)`, so ids line
// up within one output.
class task_formatter {
public:
    task_formatter() = default;
    // Ids printed as `(ring, local)` or not, decided elsewhere (deps_text_streamed.hpp).
    explicit task_formatter(bool pairs) : pairs_(pairs) {}
    explicit task_formatter(const std::vector<std::uint64_t>& nodes) {
        for (std::uint64_t n : nodes)
            if (ring_of(n) != 0) {
                pairs_ = true;
                break;
            }
    }
    std::string operator()(std::uint64_t raw) const {
        fmt::memory_buffer out;
        format_to(out, raw);
        return fmt::to_string(out);
    }
    void format_to(fmt::memory_buffer& out, std::uint64_t raw) const { format_to(std::back_inserter(out), raw); }
    template <class OutputIt>
    OutputIt format_to(OutputIt out, std::uint64_t raw) const {
        if (pairs_) return fmt::format_to(out, FMT_COMPILE("({}, {})"), ring_of(raw), local_of(raw));
        return fmt::format_to(out, FMT_COMPILE("{}"), local_of(raw));
    }
    bool pairs() const { return pairs_; }

private:
    bool pairs_ = false;
};

// DOT node id `T<high>_<local>`. The whole high half is used (not only the ring
// byte), so two distinct ids can never collide into one node.
inline std::string dot_node_id(std::uint64_t raw) { return fmt::format("T{}_{}", raw >> 32, local_of(raw)); }

}  // namespace dfx::convert::deps
