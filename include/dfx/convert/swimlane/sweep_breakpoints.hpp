// sweep_breakpoints: the scheduler-overhead sweep's events (overhead_model.hpp)
// as sorted time arrays, one per tracked core type and kind of change, walked
// in time order by merging them.
//
//   sweep_breakpoints b(w0, w1, slots);
//   b.add_run(slot, start, end);      // a task row executing [start, end)
//   b.add_ready(slot, ready, dispatch);  // a task ready, not yet dispatched
//   b.add_bare(t);                     // a breakpoint that changes no count
//   b.sort();
//   b.walk([](double a, double b, const auto& running, const auto& ready) {...});
//   b.any_ready_at(slot, t);           // Part 2 of `dfx sched-overhead`
//   b.breakpoints_between(ga, gb, pts); // the distinct breakpoints in (ga, gb)
//
// Why: the sweep used to sort 16-byte (time, slot, +-1) deltas, a second
// array of every breakpoint time to find the distinct ones, and kept a
// (time, ready flag per type) step per breakpoint for Part 2. Here an event
// is its 8-byte time in the array of its kind; the distinct breakpoints are
// the merge of the arrays, and the ready count at t is the number of ready
// begins <= t minus the ready ends <= t (two binary searches), so no step
// is stored: at 10^6 tasks about 60 MB (2.3 rows and about 1.3 ready
// intervals a task, 16 bytes each) where the old sweep's peak was 300 MB
// (heaptrack).
//
// Every time must lie in [w0, w1] (the caller clamps; a window with w1 < w0
// is walked from w1 to w0, as the sorted breakpoints were). walk() calls
// back once per pair of consecutive distinct breakpoints a < b of {w0, w1}
// and every event, with the counts of all events at times <= a, as the
// sorted deltas did.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dfx::convert::swimlane {

class sweep_breakpoints {
public:
    sweep_breakpoints() = default;
    sweep_breakpoints(double w0, double w1, std::size_t slots)
        : w0_(w0), w1_(w1), run_begin_(slots), run_end_(slots), ready_begin_(slots), ready_end_(slots) {}

    [[nodiscard]] std::size_t slots() const noexcept { return run_begin_.size(); }

    // Exact reservations (a counting pass first): growth by doubling would
    // hold two copies of the largest array at its peak.
    void reserve_run(std::size_t slot, std::size_t n) {
        run_begin_[slot].reserve(n);
        run_end_[slot].reserve(n);
    }
    void reserve_ready(std::size_t slot, std::size_t n) {
        ready_begin_[slot].reserve(n);
        ready_end_[slot].reserve(n);
    }
    void reserve_bare(std::size_t n) { bare_.reserve(n); }

    void add_run(std::size_t slot, double begin, double end) {
        run_begin_[slot].push_back(begin);
        run_end_[slot].push_back(end);
    }
    void add_ready(std::size_t slot, double begin, double end) {
        ready_begin_[slot].push_back(begin);
        ready_end_[slot].push_back(end);
    }
    void add_bare(double t) { bare_.push_back(t); }

    void sort() {
        for_each_array([](std::vector<double>& v) { std::sort(v.begin(), v.end()); });
    }

    // seg(a, b, running, ready) for every pair of consecutive distinct
    // breakpoints; running / ready are indexed by slot.
    template <class Segment>
    void walk(Segment&& seg) const {
        const std::size_t n = slots();
        std::vector<std::int64_t> running(n, 0), ready(n, 0);
        // Cursors into the four arrays of every slot, then bare_.
        std::vector<std::size_t> at(4 * n + 1, 0);
        const double hi = std::max(w0_, w1_);
        double a = std::min(w0_, w1_);
        while (a < hi) {
            double b = hi;
            for (std::size_t s = 0; s < n; ++s) {
                running[s] += advance(run_begin_[s], at[4 * s], a, b);
                running[s] -= advance(run_end_[s], at[4 * s + 1], a, b);
                ready[s] += advance(ready_begin_[s], at[4 * s + 2], a, b);
                ready[s] -= advance(ready_end_[s], at[4 * s + 3], a, b);
            }
            advance(bare_, at[4 * n], a, b);
            seg(a, b, running, ready);
            a = b;
        }
    }

    // Whether any task of `slot` is ready at t, below the last breakpoint:
    // the count in force on the segment holding t (false before the first).
    [[nodiscard]] bool any_ready_at(std::size_t slot, double t) const {
        if (t < std::min(w0_, w1_) || w0_ == w1_) return false;
        return count_le(ready_begin_[slot], t) > count_le(ready_end_[slot], t);
    }

    // Appends the distinct breakpoints (w0, w1 and every event) in the open
    // interval (lo, hi), sorted.
    void breakpoints_between(double lo, double hi, std::vector<double>& out) const {
        const std::size_t first = out.size();
        for (const double w : {w0_, w1_})
            if (lo < w && w < hi) out.push_back(w);
        for_each_array([&](const std::vector<double>& v) {
            for (auto it = std::upper_bound(v.begin(), v.end(), lo); it != v.end() && *it < hi; ++it) out.push_back(*it);
        });
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
        out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
    }

    // Bytes held by the arrays (their capacity).
    [[nodiscard]] std::size_t bytes() const {
        std::size_t n = 0;
        for_each_array([&](const std::vector<double>& v) { n += v.capacity() * sizeof(double); });
        return n;
    }

private:
    // Consumes the events at times <= a (returning how many) and lowers b to
    // the next event time after a.
    static std::int64_t advance(const std::vector<double>& v, std::size_t& i, double a, double& b) {
        const std::size_t from = i;
        while (i < v.size() && v[i] <= a) ++i;
        if (i < v.size() && v[i] < b) b = v[i];
        return static_cast<std::int64_t>(i - from);
    }
    static std::size_t count_le(const std::vector<double>& v, double t) {
        return static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), t) - v.begin());
    }
    template <class F>
    void for_each_array(F&& f) {
        for (auto* group : {&run_begin_, &run_end_, &ready_begin_, &ready_end_})
            for (auto& v : *group) f(v);
        f(bare_);
    }
    template <class F>
    void for_each_array(F&& f) const {
        for (const auto* group : {&run_begin_, &run_end_, &ready_begin_, &ready_end_})
            for (const auto& v : *group) f(v);
        f(bare_);
    }

    double w0_ = 0.0, w1_ = 0.0;
    std::vector<std::vector<double>> run_begin_, run_end_, ready_begin_, ready_end_;  // per slot
    std::vector<double> bare_;
};

}  // namespace dfx::convert::swimlane
