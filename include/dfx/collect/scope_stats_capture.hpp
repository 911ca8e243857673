// Scope stats on the orchestrator: a begin and an end record per scope with
// its site, depth, ring and the ring counters, heap offsets unrolled across
// wraps so every value is monotonic.
//
//   view.set_heap_capacity(ring, bytes);              once per run, before any scope
//   view.scope_begin([&] { return sample(); });       after pushing the scope; the site is the caller's
//   view.scope_end([&] { return sample(); });         before draining the scope's tasks
//   view.heap_wrapped(dfx::heap_side::alloc);         when a ring's heap pointer wraps
//   view.fatal();                                     latch: no more records, flush what is buffered
//
// The sampler is only called when scope stats is on, so a runtime pays nothing
// to compute a sample otherwise. A site's file is a string that stays as it is
// for the whole run (__builtin_FILE's literal, the default): its basename is
// taken once per distinct pointer, not per record.
#pragma once

#include <cstdint>
#include <cstring>

#include "dfx/collect/sink.hpp"
#include "dfx/record/scope_stats_records.hpp"

namespace dfx {

enum class heap_side : int { alloc = 0, reclaim = 1 };

namespace detail {

template <bool On, class Sink>
class scope_stats_capture {
public:
    constexpr explicit scope_stats_capture(Sink*) noexcept {}
    void set_heap_capacity(int, std::uint64_t) noexcept {}
    template <class Sampler>
    void scope_begin(Sampler&&, const char* = __builtin_FILE(), int = __builtin_LINE()) noexcept {}
    template <class Sampler>
    void scope_end(Sampler&&) noexcept {}
    void heap_wrapped(heap_side) noexcept {}
    void fatal() noexcept {}
};

template <class Sink>
class scope_stats_capture<true, Sink> {
    static_assert(record_sink<Sink, scope_stats_record>,
                  "dfx::orchestrator_view: the sink must accept scope_stats_record with a noexcept push");

public:
    constexpr explicit scope_stats_capture(Sink* sink) noexcept : sink_(sink) {}

    void set_heap_capacity(int ring, std::uint64_t bytes) noexcept {
        if (ring >= 0 && ring < scope_ring_count) heap_capacity_[ring] = bytes;
    }

    // The root scope passes no site: it is written as "(unknown):0".
    template <class Sampler>
    void scope_begin(Sampler&& sample, const char* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept {
        if (fatal_) return;
        // Beyond the depth cap a scope is not recorded, and neither is its
        // end (the reference records the end and desynchronises; we don't).
        if (depth_ + 1 >= max_scope_depth) {
            ++unrecorded_;
            return;
        }
        ++depth_;
        file_[depth_] = file;
        line_[depth_] = line;
        emit(scope_phase::begin, sample());
    }

    template <class Sampler>
    void scope_end(Sampler&& sample) noexcept {
        if (fatal_) return;
        if (unrecorded_ > 0) {
            --unrecorded_;
            return;
        }
        if (depth_ < 0) return;
        emit(scope_phase::end, sample());
        --depth_;
    }

    // A wrap belongs to the ring of the innermost open scope; outside any
    // scope there is no ring to charge it to.
    void heap_wrapped(heap_side side) noexcept {
        if (depth_ < 0) return;
        ++wraps_[ring()][static_cast<int>(side)];
    }

    void fatal() noexcept {
        if (fatal_) return;
        fatal_ = true;
        scope_stats_record marker{};
        marker.phase = scope_phase::fatal;
        sink_->push(marker);
        if constexpr (requires { sink_->finish(); }) sink_->finish();
    }

private:
    int ring() const noexcept { return depth_ < scope_ring_count - 1 ? depth_ : scope_ring_count - 1; }

    void emit(scope_phase phase, const scope_sample& s) noexcept {
        emit_record<scope_stats_record>(*sink_, [&](scope_stats_record& r) { fill(r, phase, s); });
    }
    void fill(scope_stats_record& r, scope_phase phase, const scope_sample& s) noexcept {
        const char* file = file_[depth_];
        // The site's basename is found once per distinct file, not per record:
        // a scope's begin and end, and every scope of a loop, share it.
        if (file != site_file_ || !site_cached_) {
            copy_basename(file, site_);
            site_file_ = file;
            site_cached_ = true;
        }
        std::memcpy(r.site, site_, sizeof site_);
        r.site_line = file ? line_[depth_] : 0;
        r.depth = static_cast<std::int16_t>(depth_);
        const int ring_id = ring();
        r.ring = static_cast<std::int16_t>(ring_id);
        r.phase = phase;
        r.task_start = s.task_window_tail;
        r.task_end = s.task_window_head;
        const std::uint64_t capacity = heap_capacity_[ring_id];
        r.heap_start = s.heap_reclaim + wraps_[ring_id][static_cast<int>(heap_side::reclaim)] * capacity;
        r.heap_end = s.heap_alloc + wraps_[ring_id][static_cast<int>(heap_side::alloc)] * capacity;
        r.dep_pool_end = s.dep_pool_top;
        r.dep_pool_start = s.dep_pool_tail > s.dep_pool_top ? s.dep_pool_top : s.dep_pool_tail;
        r.tensormap_used = s.tensormap_live;
        r.reserved = 0;
    }

    // The text after the last '/' or '\', 31 characters at most, NUL-padded.
    static void copy_basename(const char* file, char (&out)[scope_site_chars]) noexcept {
        const char* name = file ? file : "(unknown)";
        for (const char* p = name; *p; ++p)
            if (*p == '/' || *p == '\\') name = p + 1;
        int i = 0;
        for (; i < scope_site_chars - 1 && name[i]; ++i) out[i] = name[i];
        for (; i < scope_site_chars; ++i) out[i] = '\0';
    }

    Sink* sink_;
    int depth_ = -1;
    int unrecorded_ = 0;
    bool fatal_ = false;
    const char* file_[max_scope_depth] = {};
    int line_[max_scope_depth] = {};
    std::uint64_t wraps_[scope_ring_count][2] = {};
    std::uint64_t heap_capacity_[scope_ring_count] = {};
    // The last site's basename, for the file it came from.
    const char* site_file_ = nullptr;
    bool site_cached_ = false;
    char site_[scope_site_chars] = {};
};

}  // namespace detail
}  // namespace dfx
