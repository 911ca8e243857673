// oneTBB's flow graph, a runtime nobody here wrote, instrumented through its
// public API only (docs/embedding.md, "oneTBB flow graph"): a layered DAG of
// continue_nodes with fan-in and fan-out, each node's body stamping
// received/started/ended on the lane of the thread that runs it, and the
// graph's edges, as they are made, captured as dep_gen's explicit deps.
//
//   dfx-tbb-flow-graph [--threads=N] [--layers=L] [--width=W] [OUT_DIR]
//   then: dfx swimlane OUT_DIR/chip_swimlane_records.json; dfx deps OUT_DIR/deps.json
//
// The roles on TBB:
//   worker        every thread that enters the arena (TBB's workers and the
//                 main thread, which runs node bodies while it waits); its lane
//                 is created on the thread when it first enters
//                 (task_scheduler_observer) and kept for the whole run
//   orchestrator  the main thread, which builds the graph and captures each
//                 node with its predecessors before starting it
//   scheduler     none: TBB's workers steal from each other, no thread hands
//                 tasks over, so the swimlane level is 1
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include "dfx/session.hpp"

namespace {

// Level 1 (worker timing) and the dependency graph: all that maps onto TBB.
using dfx_collectors = dfx::collectors<dfx::swimlane_level<1>, dfx::dep_gen<true>>;
using dfx_session = dfx::session<dfx_collectors>;
using worker_lane = dfx_session::worker_lane;

constexpr const char* kernel_names[] = {"tile_load", "stencil", "reduce", "scale"};
constexpr std::uint32_t kernel_count = 4;

std::uint32_t kernel_of(std::uint32_t node) { return node % kernel_count; }

// A node's work: a value mixed from its predecessors' values, so a body that
// ran before one of its predecessors gives a wrong result.
std::uint64_t run_kernel(std::uint32_t kernel, std::uint64_t x) {
    for (std::uint32_t i = 0; i < 3000 * (kernel + 1); ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

// Worker lanes, one per thread that enters the arena. TBB assigns a thread
// its arena slot (current_thread_index) on every entry, and a worker leaves
// and rejoins the arena as work runs out and comes back, so the slot is not
// the thread's for the run, while a lane must be (one producer per channel,
// for the whole capture). A thread therefore claims a core on its first
// entry: its slot when no other thread has claimed it, else the lowest free
// one; there are at most max_concurrency threads (global_control caps TBB's
// workers), so the cores are the arena's slots.
class worker_lanes final : public tbb::task_scheduler_observer {
public:
    worker_lanes(tbb::task_arena& arena, dfx_session& session, std::uint32_t cores)
        : tbb::task_scheduler_observer(arena), session_(session), cores_(cores),
          lanes_(std::make_unique<std::optional<worker_lane>[]>(cores)) {
        observe(true);
    }
    worker_lanes(const worker_lanes&) = delete;
    worker_lanes& operator=(const worker_lanes&) = delete;
    ~worker_lanes() override { observe(false); }

    // The lane is made here, on the thread, before its first body runs; it
    // stays when the thread leaves (on_scheduler_exit), as the thread may return.
    void on_scheduler_entry(bool) override { (void)mine(); }

    // This thread's lane, or null when it got none (no free core, or entered
    // after close()). Never throws: an exception out of an observer is UB.
    worker_lane* mine() noexcept {
        thread_local const worker_lanes* owner = nullptr;
        thread_local worker_lane* lane = nullptr;
        if (owner == this) return lane;
        try {
            const std::lock_guard<std::mutex> hold(mutex_);
            owner = this;
            lane = nullptr;
            if (closed_) return nullptr;
            const int slot = tbb::this_task_arena::current_thread_index();
            std::uint32_t core = slot >= 0 && static_cast<std::uint32_t>(slot) < cores_ ? static_cast<std::uint32_t>(slot) : cores_;
            if (core == cores_ || lanes_[core]) {
                core = 0;
                while (core < cores_ && lanes_[core]) ++core;
            }
            if (core == cores_) {
                ++threads_without_lane_;
                return nullptr;
            }
            lane = &lanes_[core].emplace(session_.worker_channels(core));
            ++threads_;
        } catch (...) {
            failed_ = true;
        }
        return lane;
    }

    // After g.wait_for_all(): every body has returned, and TBB's wait orders
    // their stamps before this, so the lanes are finished here, on the main
    // thread (their threads, parked in TBB, never return to us).
    void close() {
        const std::lock_guard<std::mutex> hold(mutex_);
        closed_ = true;
        for (std::uint32_t c = 0; c < cores_; ++c)
            if (lanes_[c]) lanes_[c]->finish();
    }

    std::uint32_t threads() const noexcept { return threads_; }
    std::uint32_t threads_without_lane() const noexcept { return threads_without_lane_; }
    bool failed() const noexcept { return failed_; }

private:
    dfx_session& session_;
    std::uint32_t cores_;
    std::unique_ptr<std::optional<worker_lane>[]> lanes_;  // lanes cannot move: fixed storage
    std::mutex mutex_;
    bool closed_ = false;
    bool failed_ = false;
    std::uint32_t threads_ = 0;
    std::uint32_t threads_without_lane_ = 0;
};

struct options {
    std::uint32_t threads = 4;
    std::uint32_t layers = 40;
    std::uint32_t width = 30;
    const char* out = "dfx_outputs";
};

bool parse_count(std::string_view arg, std::string_view flag, std::uint32_t max, std::uint32_t& value) {
    if (arg.substr(0, flag.size()) != flag) return false;
    const std::string_view text = arg.substr(flag.size());
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > max)
        throw std::runtime_error(std::string(arg) + ": expected an integer in 1.." + std::to_string(max));
    return true;
}

options parse(int argc, char** argv) {
    options o;
    bool have_out = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (parse_count(a, "--threads=", 256, o.threads) || parse_count(a, "--layers=", 100'000, o.layers) ||
            parse_count(a, "--width=", 10'000, o.width))
            continue;
        if (a.empty() || a[0] == '-' || have_out) throw std::runtime_error("unexpected argument: " + std::string(a));
        o.out = argv[i];
        have_out = true;
    }
    if (std::uint64_t{o.layers} * o.width > 1'000'000) throw std::runtime_error("at most 1000000 nodes");
    return o;
}

// Layer l's nodes each take 1-3 predecessors from layer l-1 and, one in
// four, one more from layer l-2: fan-in, fan-out and long edges.
std::vector<std::vector<std::uint32_t>> make_predecessors(const options& o) {
    std::vector<std::vector<std::uint32_t>> preds(std::size_t{o.layers} * o.width);
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL;
    auto next = [&rng](std::uint32_t n) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>((rng >> 33) % n);
    };
    for (std::uint32_t l = 1; l < o.layers; ++l)
        for (std::uint32_t i = 0; i < o.width; ++i) {
            auto& p = preds[std::size_t{l} * o.width + i];
            const std::uint32_t fan_in = 1 + next(3);
            for (std::uint32_t k = 0; k < fan_in; ++k) {
                const std::uint32_t pred = (l - 1) * o.width + next(o.width);
                if (std::find(p.begin(), p.end(), pred) == p.end()) p.push_back(pred);
            }
            if (l >= 2 && next(4) == 0) p.push_back((l - 2) * o.width + next(o.width));
        }
    return preds;
}

std::uint64_t seed_of(std::uint32_t node) { return node + 1; }

// The value a node computes from its predecessors' (the sequential reference).
std::uint64_t node_value(std::uint32_t node, const std::vector<std::uint32_t>& preds, const std::vector<std::uint64_t>& values) {
    std::uint64_t x = seed_of(node);
    for (const std::uint32_t p : preds) x ^= values[p];
    return run_kernel(kernel_of(node), x);
}

}  // namespace

int main(int argc, char** argv) try {
    const options opt = parse(argc, argv);
    const std::uint32_t nodes = opt.layers * opt.width;
    const auto wanted_preds = make_predecessors(opt);

    // TBB creates at most threads - 1 workers; with the main thread that is
    // the arena's concurrency, and so the number of worker lanes.
    tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, opt.threads);
    tbb::task_arena arena(static_cast<int>(opt.threads));
    arena.initialize();
    const auto cores = static_cast<std::uint32_t>(arena.max_concurrency());

    dfx_session session{{.cores = std::vector<dfx::core_type>(cores, dfx::core_type::aiv), .scheduler_threads = 1},
                        {.prefix = opt.out, .case_name = "tbb_flow_graph"}};
    for (std::uint32_t k = 0; k < kernel_count; ++k) session.name_kernel(k, kernel_names[k]);

    std::vector<std::uint64_t> values(nodes, 0);
    std::vector<std::vector<std::uint32_t>> preds(nodes);  // the edges as made, for dep_gen
    std::atomic<std::uint32_t> unstamped{0};
    worker_lanes lanes(arena, session, cores);

    arena.execute([&] {
        using namespace tbb::flow;
        graph g;
        broadcast_node<continue_msg> start(g);
        std::vector<std::unique_ptr<continue_node<continue_msg>>> graph_nodes;
        graph_nodes.reserve(nodes);
        for (std::uint32_t n = 0; n < nodes; ++n)
            graph_nodes.push_back(std::make_unique<continue_node<continue_msg>>(g, [&, n](const continue_msg&) {
                worker_lane* lane = lanes.mine();
                // The task token is the dep_gen task id (n); reg_task_id only
                // needs to be unique per core. No hand-over precedes a body,
                // so received and started are the same moment.
                if (lane) {
                    lane->received(n, /*reg_task_id=*/n + 1);
                    lane->started();
                }
                values[n] = node_value(n, preds[n], values);
                if (lane) lane->ended();
                else unstamped.fetch_add(1, std::memory_order_relaxed);
                return continue_msg{};
            }));
        // Each edge is made once, here, and recorded for dep_gen as it is made.
        for (std::uint32_t n = 0; n < nodes; ++n) {
            if (wanted_preds[n].empty()) make_edge(start, *graph_nodes[n]);
            for (const std::uint32_t p : wanted_preds[n]) {
                make_edge(*graph_nodes[p], *graph_nodes[n]);
                preds[n].push_back(p);
            }
        }
        {
            auto orchestrator = session.orchestrator();
            for (std::uint32_t n = 0; n < nodes; ++n) {
                const std::vector<std::uint64_t> deps(preds[n].begin(), preds[n].end());
                orchestrator.capture_submit({.task_id = n, .kernel_ids = {-1, static_cast<std::int32_t>(kernel_of(n)), -1},
                                             .explicit_deps = deps});
            }
        }
        start.try_put(continue_msg{});
        g.wait_for_all();
    });
    lanes.close();

    std::vector<std::uint64_t> reference(nodes, 0);
    std::uint32_t wrong = 0;
    for (std::uint32_t n = 0; n < nodes; ++n) {
        reference[n] = node_value(n, preds[n], reference);
        if (reference[n] != values[n]) ++wrong;
    }
    std::size_t edges = 0;
    for (const auto& p : preds) edges += p.size();

    const dfx::session_summary summary = session.finish();
    std::fprintf(stderr,
                 "tbb flow graph: %u nodes, %zu edges, %u worker lanes of %u cores, %u threads without a lane, "
                 "%u bodies unstamped, %u wrong results\n",
                 nodes, edges, lanes.threads(), cores, lanes.threads_without_lane(), unstamped.load(), wrong);
    const bool ok = summary.complete() && !lanes.failed() && lanes.threads_without_lane() == 0 && unstamped.load() == 0 && wrong == 0;
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "dfx-tbb-flow-graph: %s\n", e.what());
    return 1;
}
