// Zero cost, part (a): with every collector off, the collector set, every
// role view and the per-dispatch stamp are empty types, so they add no bytes
// to a runtime's state (the machine-code and instruction-count halves of the
// proof live in tests/zero_cost).
#include <doctest/doctest.h>

#include <type_traits>

#include "dfx/collect.hpp"
#include "dfx/policy.hpp"

namespace {

struct any_sink {
    template <class Record>
    void push(const Record&) noexcept {}
};

using off = dfx::collector_set<dfx::all_off, dfx::tsc_clock, any_sink>;

static_assert(std::is_empty_v<off>);
static_assert(std::is_empty_v<off::aicore_view>);
static_assert(std::is_empty_v<off::scheduler_view>);
static_assert(std::is_empty_v<off::orchestrator_view>);
static_assert(std::is_empty_v<off::scheduler_view::stamp>);
static_assert(std::is_empty_v<decltype(std::declval<off::scheduler_view&>().phase(dfx::sched_phase_kind::complete, 0))>);
static_assert(std::is_empty_v<decltype(std::declval<off::orchestrator_view&>().submitting(0))>);

// A view only holds what its role stamps: at level 1 the scheduler and the
// orchestrator stay empty.
using level1 = dfx::collector_set<dfx::collectors<dfx::swimlane_level<1>>, dfx::tsc_clock, any_sink>;
static_assert(!std::is_empty_v<level1::aicore_view>);
static_assert(std::is_empty_v<level1::scheduler_view>);
static_assert(std::is_empty_v<level1::orchestrator_view>);

// At level 2 the dispatch stamp is real, and phases are still empty.
using level2 = dfx::collector_set<dfx::collectors<dfx::swimlane_level<2>>, dfx::tsc_clock, any_sink>;
static_assert(!std::is_empty_v<level2::scheduler_view::stamp>);
static_assert(std::is_empty_v<decltype(std::declval<level2::scheduler_view&>().phase(dfx::sched_phase_kind::complete, 0))>);
static_assert(std::is_empty_v<decltype(std::declval<level2::scheduler_view&>().phase(
                  dfx::sched_phase_kind::complete, 0, [] { return dfx::queue_depths{}; }))>);
static_assert(std::is_empty_v<level2::orchestrator_view>);

// A runtime's per-core slot keeps the stamp without paying for it when off.
struct core_slot {
    unsigned reg_task_id;
    [[no_unique_address]] off::scheduler_view::stamp dispatched;
};
static_assert(sizeof(core_slot) == sizeof(unsigned));

}  // namespace

TEST_CASE("disabled collectors are empty types (checked at compile time above)") {
    CHECK(sizeof(off) == 1);
    CHECK(sizeof(level1::scheduler_view) == 1);
    CHECK(sizeof(core_slot) == sizeof(unsigned));
}
