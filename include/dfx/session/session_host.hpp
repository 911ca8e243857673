// The host side of one capture, for a collector choice known at run time:
// the host collectors the choice enables (and no others), the channels they
// create, sized from the runtime's layout, the drain (by default one thread
// for all of them: transport/drain_group.hpp), and the artefacts.
// dfx::session (session.hpp) is the typed face most runtimes use; the
// simulator, which maps run-time flags onto compiled role guards, uses this
// class directly.
//
//   dfx::session_host host(choice, clock_freq_hz, layout, {.prefix = "dfx_outputs"});
//   // per thread: a lane built from the channels its guards need
//   dfx::worker_lane<G, Clock> lane{host.channels<typename dfx::worker_lane<G, Clock>::sink_type>(core)};
//   ...
//   dfx::session_summary summary = host.finish();  // waits for the lanes, writes, accounts
//
// finish() writes the artefacts as one set: staged beside the prefix and
// swapped in at once, so a crash leaves the previous set or the new one,
// never a mix (output/artefact_set.hpp). It never writes a collector's
// artefact as if complete when its capture was not: a lane still alive when
// the wait ends is named while the session waits and its records are counted
// as lost, and a collector with an unfinished producer or dropped records
// writes nothing; the summary says why.
// (The exceptions, whose files record the loss themselves: scope stats'
// header carries `dropped`, and the args dump flags what it truncated.)
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dfx/output/artefact_set.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/host_collectors.hpp"
#include "dfx/output/name_map.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/policy/collector_choice.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/session/session_summary.hpp"
#include "dfx/transport/accounting.hpp"
#include "dfx/transport/drain_group.hpp"
#include "dfx/transport/transport_host.hpp"

namespace dfx {

// The runtime's threads, as the collectors see them.
struct session_layout {
    std::vector<core_type> cores{};        // one entry per worker (AICore) lane: its kind
    std::uint32_t scheduler_threads = 1;   // dispatcher threads
    std::uint32_t orchestrators = 1;       // threads that submit tasks
    // The scheduler thread that owns each core; empty: core i -> i % scheduler_threads.
    std::vector<int> core_to_thread{};
};

// Everything about a capture that is not the threads. Defaults suit a first run.
struct session_options {
    std::filesystem::path prefix = "dfx_outputs";  // the artefacts' directory
    std::string case_name = "run";                  // name_map_<case>.json; empty: name_map.json (an L3 dispatch)
    // How long finish() waits for lanes still attached before counting their
    // records as lost, and after how long it names them while it waits.
    std::chrono::milliseconds stop_timeout{10'000};
    std::chrono::milliseconds name_waiting_after{500};
    std::FILE* log = stderr;  // waiting lines and the accounting; nullptr: silent
    // Phase arrays in chip_swimlane_records.json; 0: one per scheduler thread.
    // (Simpler's a2a3 platform always writes 4.)
    std::uint32_t scheduler_pools = 0;
    args_dump_layout dump_sizes{};  // its scheduler_threads is taken from the layout
    // Every collector drained by one host thread (transport/drain_group.hpp):
    // one thread woken instead of one per collector. false: a thread per
    // collector, so a sink that blocks (args.bin on a disk that stalls) holds
    // up only its own collector's channels.
    bool one_drain_thread = true;
};

// Which host collectors a session compiles: all of them for a choice made at
// run time; only the enabled ones for dfx::session, whose choice is a type,
// so a runtime's host TU compiles no writer it cannot use.
struct all_hosts {
    static constexpr bool swimlane = true, dep_gen = true, scope_stats = true, args_dump = true, pmu = true;
};
template <class Collectors>
struct hosts_of {
    static constexpr collector_choice c = Collectors::choice;
    static constexpr bool swimlane = c.swimlane_level > 0, dep_gen = c.dep_gen, scope_stats = c.scope_stats,
                          args_dump = c.dump_level > 0, pmu = c.pmu_event > 0;
};

namespace detail {
struct no_host {};  // stands in for a host collector a session does not compile
template <bool Compiled, class Host>
using host_if = std::conditional_t<Compiled, Host, no_host>;
// Whether a host's definition has been included (output/host_collectors.hpp).
template <class Host>
concept defined = requires { sizeof(Host); };

// What follows does not depend on which hosts a session compiles, so it is
// plain inline code, compiled once in the host TU rather than once per host.

// A collector's counts, and why its artefact is not written when its capture
// is incomplete (not_written left empty otherwise). A file that records its
// own losses (records_loss) is still written after drops.
inline void counted_outcome(collector_outcome& o, const char* name, const std::vector<channel_report>& reports,
                            bool records_loss) {
    o.collector = name;
    o.counts = totals(reports);
    if (o.counts.unfinished_channels > 0) {
        std::string who;
        for (const auto& r : reports)
            if (r.unfinished()) who += message({who.empty() ? "" : ", ", r.name, " ", r.producer_id});
        o.not_written = message({"not written: ", o.counts.unfinished_channels, " lane(s) never finished (", who, "), ",
                                 o.counts.lost, " records lost; finish every lane before session.finish()"});
    } else if (o.counts.dropped > 0 && !records_loss) {
        o.not_written = message({"not written: ", o.counts.dropped, " of ", o.counts.produced, " records were dropped"});
    }
}

// One host's channel reports, under the collector's title.
struct titled_reports {
    const char* title;
    std::vector<channel_report> reports;
};

// Names, once each, the lanes still attached; true if any is.
inline bool note_running_lanes(const std::vector<titled_reports>& hosts, bool name_them, std::FILE* log,
                               long long remaining_ms, std::vector<std::string>& named) {
    bool running = false;
    for (const titled_reports& h : hosts)
        for (const auto& r : h.reports) {
            if (!r.unfinished()) continue;
            running = true;
            if (!name_them || !log) continue;
            std::string id = message({h.title, "/", r.name, "/", r.producer_id});
            bool already = false;  // (a loop, not std::find: <algorithm> is not parsed for this)
            for (const std::string& n : named) already = already || n == id;
            if (already) continue;
            std::fprintf(log,
                         "dfx session: waiting for %s: the lane of %s %u is still attached "
                         "(finish it, or let it go out of scope); giving up in %lld ms\n",
                         h.title, r.name.c_str(), r.producer_id, remaining_ms);
            std::fflush(log);
            named.push_back(std::move(id));
        }
    return running;
}
}  // namespace detail

template <class Hosts>
class basic_session_host {
    static_assert(!Hosts::swimlane || detail::defined<swimlane_host<>>,
                  "dfx session: the swimlane is on: #include <dfx/output/swimlane_host.hpp> (or <dfx/session.hpp>)");
    static_assert(!Hosts::dep_gen || detail::defined<dep_gen_host<>>,
                  "dfx session: dep_gen is on: #include <dfx/output/dep_gen_host.hpp> (or <dfx/session.hpp>)");
    static_assert(!Hosts::scope_stats || detail::defined<scope_stats_host<>>,
                  "dfx session: scope stats are on: #include <dfx/output/scope_stats_host.hpp> (or <dfx/session.hpp>)");
    static_assert(!Hosts::args_dump || detail::defined<args_dump_host<>>,
                  "dfx session: the args dump is on: #include <dfx/output/args_dump_host.hpp> (or <dfx/session.hpp>)");
    static_assert(!Hosts::pmu || detail::defined<pmu_host<>>,
                  "dfx session: PMU is on: #include <dfx/output/pmu_host.hpp> (or <dfx/session.hpp>)");

public:
    basic_session_host(collector_choice choice, std::uint64_t clock_freq_hz, session_layout layout, session_options options = {})
        : choice_(choice), layout_(std::move(layout)), options_(std::move(options)) {
        if (!choice_.any_enabled()) return;
        if ((choice_.swimlane_level > 0 && !Hosts::swimlane) || (choice_.dep_gen && !Hosts::dep_gen) ||
            (choice_.scope_stats && !Hosts::scope_stats) || (choice_.dump_level > 0 && !Hosts::args_dump) ||
            (choice_.pmu_event > 0 && !Hosts::pmu))
            throw output_error("dfx session: a collector is on that this session was compiled without");
        if (layout_.cores.empty() && (choice_.swimlane_level > 0 || choice_.pmu_event > 0))
            throw output_error("dfx session: the layout has no cores");
        if (layout_.scheduler_threads == 0) throw output_error("dfx session: the layout has no scheduler threads");
        if (layout_.orchestrators == 0) throw output_error("dfx session: the layout has no orchestrators");
        if (layout_.core_to_thread.empty())
            for (std::size_t c = 0; c < layout_.cores.size(); ++c)
                layout_.core_to_thread.push_back(static_cast<int>(c % layout_.scheduler_threads));
        if (layout_.core_to_thread.size() != layout_.cores.size())
            detail::throw_output_error({"dfx session: core_to_thread has ", layout_.core_to_thread.size(),
                                        " entries for ", layout_.cores.size(), " cores"});
        for (const int t : layout_.core_to_thread)
            if (t < 0 || static_cast<std::uint32_t>(t) >= layout_.scheduler_threads)
                detail::throw_output_error({"dfx session: core_to_thread names scheduler thread ", t, " of ",
                                            layout_.scheduler_threads});
        // Written into a staging directory, swapped in whole by finish() (output/artefact_set.hpp);
        // the args dump streams into it as the run goes.
        set_.emplace(options_.prefix);
        const std::filesystem::path& dir = set_->dir();

        // The session waits for its lanes itself (finish), so the hosts' own stop only drains.
        // One drain thread for every host: each thread more is one more to wake
        // on a machine whose cores the runtime's threads already fill.
        const transport_options drain_only{
            .drain_threads = 1,
            .stop_timeout = std::chrono::milliseconds{0},
            .group = options_.one_drain_thread ? &drains_ : nullptr};
        if constexpr (Hosts::swimlane) if (choice_.swimlane_level > 0) {
            swimlane_layout sl;
            sl.core_types = layout_.cores;
            sl.scheduler_threads = layout_.scheduler_threads;
            sl.scheduler_pools = options_.scheduler_pools ? options_.scheduler_pools : layout_.scheduler_threads;
            sl.orchestrator_lanes = layout_.orchestrators;
            sl.clock_freq_hz = clock_freq_hz;
            swimlane_.emplace(choice_.swimlane_level, std::move(sl), channels_, drain_only);
            if (choice_.swimlane_level >= 3) swimlane_->set_core_to_thread(layout_.core_to_thread);
        }
        if constexpr (Hosts::dep_gen) if (choice_.dep_gen) deps_.emplace(channels_, channel_size{4, 32}, drain_only);
        if constexpr (Hosts::scope_stats) if (choice_.scope_stats) scopes_.emplace(channels_, channel_size{4, 512}, drain_only);
        if constexpr (Hosts::args_dump) if (choice_.dump_level > 0) {
            args_dump_layout dl = options_.dump_sizes;
            dl.scheduler_threads = layout_.scheduler_threads;
            dump_.emplace(choice_.dump_level, dir, dl, channels_, drain_only);
        }
        if constexpr (Hosts::pmu) if (choice_.pmu_event > 0) {
            pmu_layout pl;
            for (const int t : layout_.core_to_thread) pl.core_to_thread.push_back(static_cast<std::uint32_t>(t));
            pmu_.emplace(choice_.pmu_event, std::move(pl), channels_, drain_only);
        }
        for_each_host([](auto& h, const char*) { h.start(); });
    }
    basic_session_host(const basic_session_host&) = delete;
    basic_session_host& operator=(const basic_session_host&) = delete;
    ~basic_session_host() {
        if (!finished_) stop();
    }

    const collector_choice& choice() const noexcept { return choice_; }
    const session_layout& layout() const noexcept { return layout_; }
    const session_options& options() const noexcept { return options_; }

    // The handles a lane of sink type Sink is built from, for a core, a
    // scheduler thread or an orchestrator; throws output_error for an index
    // outside the layout.
    template <class Sink>
    sink_channels_t<Sink> channels(std::uint32_t index) const {
        if constexpr (std::tuple_size_v<sink_channels_t<Sink>> == 0) {
            return {};
        } else {
            if (finished_) throw output_error("dfx session: a lane was asked for after finish()");
            return channels_.template channels<Sink>(index);
        }
    }

    // Kernel names for the name map: func id -> name.
    void name_kernel(std::int64_t func_id, std::string name) { kernels_.add(func_id, std::move(name)); }
    void set_orchestrator_name(std::string name) { kernels_.orchestrator_name = std::move(name); }

    // Scope stats: the capacities the ring-fill report compares against.
    void set_ring_capacity(int ring, std::int32_t task_window, std::uint64_t heap_bytes, std::int32_t dep_pool) {
        if constexpr (Hosts::scope_stats)
            if (scopes_) scopes_->set_ring_capacity(ring, task_window, heap_bytes, dep_pool);
    }
    void set_tensormap_capacity(std::int32_t entries) {
        if constexpr (Hosts::scope_stats)
            if (scopes_) scopes_->set_tensormap_capacity(entries);
    }

    // The hosts, for what the session does not wrap (the args dump and PMU
    // summaries); empty when the collector is off.
    auto& swimlane() noexcept { return swimlane_; }
    auto& dep_gen() noexcept { return deps_; }
    auto& scope_stats() noexcept { return scopes_; }
    auto& args_dump() noexcept { return dump_; }
    auto& pmu() noexcept { return pmu_; }

    // Waits for every lane to finish (naming the ones still attached, up to
    // stop_timeout), stops the drain, writes every artefact whose capture is
    // complete, the name map, and the accounting (to options.log). Call once,
    // after the runtime's threads are done. Throws output_error when a file
    // cannot be written.
    session_summary finish() {
        if (finished_) throw output_error("dfx session: finish() called twice");
        session_summary summary;
        if (!choice_.any_enabled()) {
            finished_ = true;
            return summary;
        }
        wait_for_lanes();
        stop();
        const std::filesystem::path& dir = set_->dir();
        if constexpr (Hosts::swimlane)
            if (swimlane_) outcome(summary, "chip swimlane", *swimlane_, [&](artefact_paths& f) { f.add(swimlane_->write(dir)); });
        if constexpr (Hosts::dep_gen)
            if (deps_) outcome(summary, "dep_gen", *deps_, [&](artefact_paths& f) {
                const auto w = deps_->write(dir);
                if (!w.refused.empty()) throw refused{w.refused};
                f.add(w.path);
            });
        if constexpr (Hosts::scope_stats)
            if (scopes_) outcome(summary, "scope stats", *scopes_, [&](artefact_paths& f) { f.add(scopes_->write(dir)); }, /*records_loss=*/true);
        if constexpr (Hosts::args_dump)
            if (dump_) outcome(summary, "args dump", *dump_, [&](artefact_paths& f) {
                const std::filesystem::path json = dump_->write();
                if (json.empty()) return;
                f.add(json);
                f.add(json.parent_path() / schema::args_bin_file);
            }, /*records_loss=*/true);
        if constexpr (Hosts::pmu)
            if (pmu_) outcome(summary, "PMU", *pmu_, [&](artefact_paths& f) { f.add(pmu_->write(dir)); });
        if (choice_.swimlane_level > 0 || choice_.dep_gen) summary.name_map = write_name_map(dir, options_.case_name, kernels_);
        set_->commit();  // the whole set at once
        for (auto& c : summary.collectors)
            for (auto& f : c.files) f = set_->final_path(f);
        summary.name_map = set_->final_path(summary.name_map);
        if (options_.log) {
            for (const auto& h : reports()) write_accounting(options_.log, h.title, h.reports);
            if constexpr (Hosts::args_dump)
                if (dump_) write_args_dump_report(options_.log, dump_->summary());
            if constexpr (Hosts::pmu)
                if (pmu_) write_pmu_report(options_.log, pmu_->summary());
            write_session_summary(options_.log, summary);
        }
        return summary;
    }

private:
    struct refused {
        std::string why;
    };

    template <class F>
    void for_each_host(F&& f) {
        if constexpr (Hosts::swimlane)
            if (swimlane_) f(*swimlane_, "chip swimlane");
        if constexpr (Hosts::dep_gen)
            if (deps_) f(*deps_, "dep_gen");
        if constexpr (Hosts::scope_stats)
            if (scopes_) f(*scopes_, "scope stats");
        if constexpr (Hosts::args_dump)
            if (dump_) f(*dump_, "args dump");
        if constexpr (Hosts::pmu)
            if (pmu_) f(*pmu_, "PMU");
    }

    // Counts, then the artefact unless the capture is incomplete
    // (detail::counted_outcome).
    template <class Host, class Write>
    void outcome(session_summary& summary, const char* name, Host& host, Write&& write, bool records_loss = false) {
        collector_outcome& o = summary.collectors.add();
        detail::counted_outcome(o, name, host.report(), records_loss);
        if (!o.not_written.empty()) return;
        try {
            write(o.files);
        } catch (const refused& r) {
            o.not_written = r.why;
        }
    }

    std::vector<detail::titled_reports> reports() {
        std::vector<detail::titled_reports> out;
        for_each_host([&](auto& h, const char* title) { out.push_back({title, h.report()}); });
        return out;
    }

    // Polls the hosts' reports until no producer is running, naming each
    // one still attached once, or until the stop timeout.
    void wait_for_lanes() {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        std::vector<std::string> named;
        for (;;) {
            const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
            const bool running = detail::note_running_lanes(reports(), waited >= options_.name_waiting_after,
                                                            options_.log, (options_.stop_timeout - waited).count(), named);
            if (!running || clock::now() - start >= options_.stop_timeout) return;
            std::this_thread::sleep_for(std::chrono::milliseconds{2});
        }
    }

    void stop() {
        for_each_host([](auto& h, const char*) { h.stop(); });
        finished_ = true;
    }

    collector_choice choice_;
    session_layout layout_;
    session_options options_;
    kernel_table kernels_;
    bool finished_ = false;
    channel_registry channels_;
    std::optional<artefact_set> set_;  // before the hosts: the args dump writes into it until it is destroyed
    drain_group drains_;               // before the hosts: they leave it when they stop
    // Hosts last: destroyed first (their drain's passes write into themselves only).
    std::optional<detail::host_if<Hosts::swimlane, swimlane_host<>>> swimlane_;
    std::optional<detail::host_if<Hosts::dep_gen, dep_gen_host<>>> deps_;
    std::optional<detail::host_if<Hosts::scope_stats, scope_stats_host<>>> scopes_;
    std::optional<detail::host_if<Hosts::args_dump, args_dump_host<>>> dump_;
    std::optional<detail::host_if<Hosts::pmu, pmu_host<>>> pmu_;
};

// Every host collector, for a collector choice made at run time (dfx-sim).
using session_host = basic_session_host<all_hosts>;

}  // namespace dfx
