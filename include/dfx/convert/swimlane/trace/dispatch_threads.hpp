// dispatch_threads: which scheduler thread dispatches to each core, for the
// dispatch and submit->dispatch arrows: the capture's core_to_thread when it
// has one, else a vote of the dispatch phases containing each task's
// dispatch time (the thread with most votes wins, the first to vote on ties).
//
//   const dispatch_threads threads(index, verbose);   // prints its source to -v
//   const std::int64_t th = threads.of(core);         // -1: none
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/swimlane/trace/index.hpp"

namespace dfx::convert::swimlane::trace {

class dispatch_threads {
public:
    dispatch_threads(const trace_index& index, std::FILE* verbose) {
        const perf_data& pd = index.pd;
        if (!pd.core_to_thread.empty()) {
            for (std::size_t c = 0; c < pd.core_to_thread.size(); ++c) {
                if (pd.core_to_thread[c] >= 0) core_thread_.emplace_back(static_cast<std::uint32_t>(c), pd.core_to_thread[c]);
            }
            if (verbose) fmt::print(verbose, "  Core-to-thread mapping: {} cores (from perf JSON)\n", core_thread_.size());
            return;
        }
        vote(index);
        if (verbose) fmt::print(verbose, "  Core-to-thread mapping: {} cores (inferred via voting)\n", core_thread_.size());
    }

    // The scheduler thread of a core, or -1.
    std::int64_t of(std::uint32_t core) const {
        auto it = std::lower_bound(core_thread_.begin(), core_thread_.end(), std::make_pair(core, std::int64_t{-1}),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
        return it != core_thread_.end() && it->first == core ? it->second : -1;
    }

private:
    // Per thread: dispatch phases sorted by start with a running max end,
    // so "some phase contains t" is one binary search.
    struct span_index {
        std::size_t thread;
        std::vector<std::pair<double, double>> spans;  // (start, running max end)
    };
    struct votes {
        std::uint32_t core;
        std::vector<std::pair<std::size_t, std::int64_t>> per_thread;  // first-vote order
    };

    static std::vector<span_index> dispatch_spans(const perf_data& pd) {
        std::vector<span_index> threads;
        for (std::size_t th = 0; th < pd.sched.size(); ++th) {
            span_index s{th, {}};
            pd.sched[th].phases.for_each_where(kind_is(phase_kind::dispatch), [&](std::size_t, const sched_record& r) {
                s.spans.emplace_back(pd.start_us(r), pd.end_us(r));
            });
            if (s.spans.empty()) continue;
            std::sort(s.spans.begin(), s.spans.end());
            for (std::size_t i = 1; i < s.spans.size(); ++i) s.spans[i].second = std::max(s.spans[i].second, s.spans[i - 1].second);
            threads.push_back(std::move(s));
        }
        return threads;
    }

    void vote(const trace_index& index) {
        const std::vector<span_index> threads = dispatch_spans(index.pd);
        std::vector<votes> by_core;
        for (const task& t : index.tasks) {
            if (t.dispatch_us < 0) continue;
            for (const auto& s : threads) {
                auto it = std::upper_bound(s.spans.begin(), s.spans.end(), t.dispatch_us,
                                           [](double d, const std::pair<double, double>& p) { return d < p.first; });
                if (it == s.spans.begin() || std::prev(it)->second < t.dispatch_us) continue;
                auto v = std::find_if(by_core.begin(), by_core.end(), [&](const votes& x) { return x.core == t.core_id; });
                if (v == by_core.end()) {
                    by_core.push_back({t.core_id, {}});
                    v = std::prev(by_core.end());
                }
                auto pt = std::find_if(v->per_thread.begin(), v->per_thread.end(),
                                       [&](const auto& p) { return p.first == s.thread; });
                if (pt == v->per_thread.end()) {
                    v->per_thread.emplace_back(s.thread, 1);
                } else {
                    ++pt->second;
                }
            }
        }
        for (const votes& v : by_core) {
            auto best = v.per_thread.begin();
            for (auto it = v.per_thread.begin(); it != v.per_thread.end(); ++it) {
                if (it->second > best->second) best = it;
            }
            core_thread_.emplace_back(v.core, static_cast<std::int64_t>(best->first));
        }
        std::sort(core_thread_.begin(), core_thread_.end());
    }

    std::vector<std::pair<std::uint32_t, std::int64_t>> core_thread_;  // sorted by core
};

}  // namespace dfx::convert::swimlane::trace
