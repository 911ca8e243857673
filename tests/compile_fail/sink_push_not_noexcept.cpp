// expect: the sink must accept aicore_task_record with a noexcept push
#include "dfx/collect/aicore_view.hpp"
#include "dfx/policy/clock.hpp"

struct sink {
#ifdef DFX_COMPILE_FAIL
    void push(const dfx::aicore_task_record&) {}
#else
    void push(const dfx::aicore_task_record&) noexcept {}
#endif
};

void worker(sink* s) {
    dfx::aicore_view<dfx::aicore_guards<true, false>, dfx::steady_clock_source, sink> view{s};
    view.received(1, 1);
    view.started();
    view.ended();
}
