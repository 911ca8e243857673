// Every record is delivered or counted as dropped: the per-channel counts,
// the invariant collected + dropped == produced, and the run summary that
// shows every drop and shouts when the invariant breaks.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "dfx/transport/channel.hpp"

namespace dfx {

// One channel's accounting at the end of a run (or at any moment, for a
// live view).
struct channel_report {
    std::string name;
    std::uint32_t producer_id = 0;
    producer_state state = producer_state::idle;
    std::uint64_t produced = 0;
    std::uint64_t collected = 0;
    std::uint64_t dropped = 0;
    std::uint64_t backstops = 0;
    std::uint64_t dropped_items = 0;  // what the dropped records carried, for kinds that count it

    bool balanced() const noexcept { return collected + dropped == produced; }
    // Records pushed but neither collected nor dropped: non-zero only for a
    // producer that never exited (they were still in its hands at the end).
    std::uint64_t unaccounted() const noexcept {
        return produced > collected + dropped ? produced - collected - dropped : 0;
    }
    // Attached and never finished: whatever it held, and anything it would
    // still have stamped, is lost, even when the counts happen to add up.
    bool unfinished() const noexcept { return state == producer_state::running; }
    std::uint64_t lost() const noexcept { return unfinished() ? unaccounted() : 0; }
};

struct accounting_totals {
    std::uint64_t produced = 0;
    std::uint64_t collected = 0;
    std::uint64_t dropped = 0;
    std::uint64_t lost = 0;                // held by producers that never finished
    std::size_t unbalanced_channels = 0;
    std::size_t unfinished_channels = 0;

    bool balanced() const noexcept { return unbalanced_channels == 0 && unfinished_channels == 0; }
    bool complete() const noexcept { return balanced() && dropped == 0; }
};

inline accounting_totals totals(const std::vector<channel_report>& reports) {
    accounting_totals t;
    for (const auto& r : reports) {
        t.produced += r.produced;
        t.collected += r.collected;
        t.dropped += r.dropped;
        t.lost += r.lost();
        if (!r.balanced()) ++t.unbalanced_channels;
        if (r.unfinished()) ++t.unfinished_channels;
    }
    return t;
}

// Writes the run summary: one total line, one line per channel that dropped
// anything, and a loud line per channel whose counts do not add up.
// Returns false when any channel is unbalanced.
inline bool write_accounting(std::FILE* out, const char* title, const std::vector<channel_report>& reports) {
    const accounting_totals t = totals(reports);
    std::fprintf(out, "%s: %" PRIu64 " records produced, %" PRIu64 " collected, %" PRIu64 " dropped", title,
                 t.produced, t.collected, t.dropped);
    if (t.unfinished_channels > 0) std::fprintf(out, ", %" PRIu64 " lost", t.lost);
    std::fputc('\n', out);
    for (const auto& r : reports) {
        if (r.dropped > 0) {
            std::fprintf(out, "  DROPPED %" PRIu64 " of %" PRIu64 " records in %s (producer %u)", r.dropped,
                         r.produced, r.name.c_str(), r.producer_id);
            if (r.dropped_items > 0) std::fprintf(out, ", %" PRIu64 " items in them", r.dropped_items);
            std::fprintf(out, "%s\n", r.backstops > 0 ? ": the host stopped taking buffers and the backstop fired" : "");
        }
        if (r.unfinished() || !r.balanced()) {
            if (r.state != producer_state::exited)
                std::fprintf(out,
                             "  LOST %" PRIu64 " records in %s (producer %u): the producer never finished, "
                             "they were still in its buffers when collection stopped\n",
                             r.unaccounted(), r.name.c_str(), r.producer_id);
            else
                std::fprintf(out,
                             "  BUG: %s (producer %u): collected %" PRIu64 " + dropped %" PRIu64
                             " != produced %" PRIu64 "; please report this\n",
                             r.name.c_str(), r.producer_id, r.collected, r.dropped, r.produced);
        }
    }
    return t.balanced();
}

}  // namespace dfx
