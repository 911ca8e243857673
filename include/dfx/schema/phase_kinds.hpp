// The scheduler phase kinds of the chip swimlane (spec chip-swimlane.md
// §1.3, ChipSwimlaneSchedPhaseKind): the number a record carries and the
// string the records file writes as its `kind`. One table, used by the
// scheduler's stamps (record/), the writer (output/) and the readers
// (convert/), so a kind cannot get a different name or number in one of them.
//
//   auto phase = view.phase(dfx::sched_phase_kind::dispatch, iter);   // a stamp (record/ names it so)
//   out.raw(dfx::schema::phase_kind_name(kind));                     // the writer
//   if (auto k = dfx::schema::phase_kind_from_name(s)) ...           // a reader; nullopt: legacy or unknown
//
// docs/swimlane.md says what each kind means.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dfx::schema {

// Values are the reference's (3 is unused: the old idle kind).
enum class phase_kind : std::uint8_t {
    complete = 0,
    dispatch = 1,
    release = 2,
    dummy = 4,
    early_dispatch = 5,
    resolve = 6,
    dummy_task = 7,
    drain = 8,
    drain_prepare = 9,
    drain_publish = 10,
    async_poll = 11,
    predicated_skip = 12,
    graph_prepare = 13,
    // Any other scheduler work worth a slice on the thread's lane (dfxkit's, for
    // a scheduler that is not Simpler's); outside the reference's numbering so
    // a kind it adds later cannot collide.
    generic = 32,
};

struct phase_kind_entry {
    phase_kind kind;
    std::string_view name;  // the records file's `kind` string
};

// Every kind, in the reference's numeric order.
inline constexpr std::array<phase_kind_entry, 14> phase_kinds = {{
    {phase_kind::complete, "complete"},
    {phase_kind::dispatch, "dispatch"},
    {phase_kind::release, "release"},
    {phase_kind::dummy, "dummy"},
    {phase_kind::early_dispatch, "early_dispatch"},
    {phase_kind::resolve, "resolve"},
    {phase_kind::dummy_task, "dummy_task"},
    {phase_kind::drain, "drain"},
    {phase_kind::drain_prepare, "drain_prepare"},
    {phase_kind::drain_publish, "drain_publish"},
    {phase_kind::async_poll, "async_poll"},
    {phase_kind::predicated_skip, "predicated_skip"},
    {phase_kind::graph_prepare, "graph_prepare"},
    {phase_kind::generic, "generic"},
}};

// The reference's name for a value outside the table.
inline constexpr std::string_view unknown_phase_kind_name = "unknown";

constexpr std::string_view phase_kind_name(phase_kind kind) noexcept {
    for (const auto& e : phase_kinds)
        if (e.kind == kind) return e.name;
    return unknown_phase_kind_name;
}

// The kind a records file's `kind` string names; nullopt for the legacy
// strings (scan, poll, idle, fanout, prestage) and anything unknown.
constexpr std::optional<phase_kind> phase_kind_from_name(std::string_view name) noexcept {
    for (const auto& e : phase_kinds)
        if (e.name == name) return e.kind;
    return std::nullopt;
}

// Kinds that carry a task id rather than queue work.
constexpr bool phase_carries_task(phase_kind kind) noexcept {
    return kind == phase_kind::dummy_task || kind == phase_kind::predicated_skip || kind == phase_kind::graph_prepare;
}

namespace detail {
constexpr bool phase_table_is_consistent() noexcept {
    for (std::size_t i = 0; i < phase_kinds.size(); ++i)
        for (std::size_t j = i + 1; j < phase_kinds.size(); ++j)
            if (phase_kinds[i].kind == phase_kinds[j].kind || phase_kinds[i].name == phase_kinds[j].name) return false;
    for (const auto& e : phase_kinds)
        if (phase_kind_from_name(e.name) != e.kind) return false;
    return true;
}
}  // namespace detail
static_assert(detail::phase_table_is_consistent(), "every phase kind has one number and one name");

}  // namespace dfx::schema
