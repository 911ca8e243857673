// func_ids: the func id of task rows that the records left unresolved (< 0),
// recovered from deps.json's kernel ids (spec §4.3): an aic row takes the
// AIC kernel, any other row the AIV kernel, else the MIX one. The reference
// does this once, on the parsed tasks, before writing the trace; the trace's
// labels and the statistics table both show the result, so `dfx swimlane`
// calls it as its own step, before either.
//
//   perf_data pd = load_perf_data(records);
//   resolve_func_ids(pd, deps);            // no-op without kernel ids
//   write_trace(pd, deps, names, out, opt);
//   print_task_statistics(stdout, pd, names);
#pragma once

#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane {

inline void resolve_func_ids(perf_data& pd, const deps_graph& deps) {
    if (deps.kernels.empty()) return;
    for (task& t : pd.tasks) {
        if (t.func_id >= 0) continue;
        const auto* k = deps.kernel_ids(t.task_id);
        if (!k) continue;
        if (pd.core_type_name(t) == "aic") {
            if (k->ids[0] >= 0) t.func_id = k->ids[0];
        } else if (k->ids[1] >= 0) {
            t.func_id = k->ids[1];
        } else if (k->ids[2] >= 0) {
            t.func_id = k->ids[2];
        }
    }
}

}  // namespace dfx::convert::swimlane
