// The simulated chip's shared state: tasks, buffers, rings, ready queues
// and the per-core registers, plus the runtime API an orchestration calls.
// The role loops that run on it are in orchestrator.hpp (one orchestrator
// thread) and scheduler.hpp (AICPU scheduler threads and AICore workers).
//
// A task's life: the orchestrator submits it into the ring of the current
// scope depth (taking a window slot, heap bytes for its outputs and dep-pool
// entries for its wired producers); it becomes ready when its last producer
// completes; a scheduler dispatches it (one SPMD block at a time) to idle
// cores; the block that completes last completes it, which releases its
// consumers and its hold on its producers; it retires once it has
// completed, every consumer it was wired to has completed and its scope has
// ended, and the ring space is freed in submit order.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "dfx/collect/dep_gen_capture.hpp"
#include "dfx/collect/scope_stats_capture.hpp"
#include "dfx/collect/task_args.hpp"
#include "dfx/record/swimlane_records.hpp"
#include "kernels.hpp"
#include "rings.hpp"
#include "tensor_map.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sim {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// Polls before sleeping: long enough to catch a reply that is microseconds
// away, short enough not to burn a core of a small machine.
inline constexpr int spin_polls = 256;

// The run cannot go on (a ring too small for what the workload holds open).
// The orchestrator stops submitting, as a runtime's fatal path does.
struct fatal_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct task {
    std::uint64_t id = 0;  // ring << 32 | local id
    int ring = 0;
    const kernel_info* kernel = nullptr;
    std::uint32_t block_num = 1;
    std::vector<tensor> args;
    std::array<float, 4> scalars{};
    std::array<std::int32_t, 3> kernel_ids{-1, -1, -1};  // {aic, aiv0, aiv1}
    // The argument list as the collectors see it: the views (OUTPUTs bound
    // at submit) and the scalars, with the marks a level-1 args dump follows.
    std::array<dfx::tensor_view, max_kernel_args> views{};       // device addresses (dep_gen)
    std::array<dfx::tensor_view, max_kernel_args> host_views{};  // host addresses (args dump)
    dfx::task_args<max_kernel_args, 4> dump_args;
    ring_slot slot;

    // Fan-in / fan-out state, under `m`.
    std::mutex m;
    bool completed = false;
    bool scope_held = true;         // the scope it was submitted in has not ended
    std::uint32_t fanout_refs = 0;  // wired consumers that have not completed
    std::vector<task*> consumers;   // wired consumers waiting for it
    std::vector<task*> producers;   // producers this task holds a reference on

    std::atomic<std::uint32_t> pending{1};  // producers not yet complete, +1 while being submitted
    std::atomic<std::uint32_t> blocks_done{0};
};

// One AICore's registers. The owning scheduler writes the payload, then the
// doorbell (the per-core dispatch token, release); the worker answers by
// writing the same token to `finished`.
struct core_state {
    dfx::core_type type = dfx::core_type::aic;
    std::uint32_t id = 0;
    unsigned owner = 0;  // scheduler thread
    std::atomic<std::uint32_t> doorbell{0};
    std::atomic<std::uint32_t> finished{0};
    task* current = nullptr;
    std::uint32_t block = 0;
};
inline constexpr std::uint32_t doorbell_stop = UINT32_MAX;

class ready_queue {
public:
    // Every SPMD block is a separate dispatch.
    void push(task* t) {
        {
            std::lock_guard lock(m_);
            for (std::uint32_t b = 0; b < t->block_num; ++b) q_.push_back({t, b});
        }
        size_.fetch_add(static_cast<int>(t->block_num), std::memory_order_release);
    }
    bool pop(task*& t, std::uint32_t& block) {
        if (size_.load(std::memory_order_acquire) == 0) return false;
        std::lock_guard lock(m_);
        if (q_.empty()) return false;
        t = q_.front().t;
        block = q_.front().block;
        q_.pop_front();
        size_.fetch_sub(1, std::memory_order_release);
        return true;
    }
    int size() const { return size_.load(std::memory_order_relaxed); }

private:
    struct entry {
        task* t;
        std::uint32_t block;
    };
    std::mutex m_;
    std::deque<entry> q_;
    std::atomic<int> size_{0};
};

struct chip_options {
    std::uint32_t aic_cores = 2;
    std::uint32_t aiv_cores = 4;
    std::uint32_t scheduler_threads = 2;
    std::array<ring_capacity, ring_count> rings{};
    std::int32_t tensormap_capacity = 4096;  // reported to scope stats; the map itself grows
    // --slow-kernel NAME:US: every task of that kernel (a func id, -1: none)
    // spins this long after its kernel, inside its [start, end): a known
    // slowdown for `dfx compare` to attribute.
    std::int32_t slow_kernel = -1;
    std::uint32_t slow_extra_us = 0;
};

// What the orchestrator waited for.
enum class resource { task_window, heap, dep_pool };
inline const char* resource_knob(resource r) {
    switch (r) {
        case resource::task_window: return "ring_task_window";
        case resource::heap: return "ring_heap";
        case resource::dep_pool: return "ring_dep_pool";
    }
    return "?";
}
inline const char* resource_flag(resource r) {
    switch (r) {
        case resource::task_window: return "--ring-task-window";
        case resource::heap: return "--ring-heap";
        case resource::dep_pool: return "--ring-dep-pool";
    }
    return "?";
}

struct stall_stats {
    std::uint64_t count = 0;
    std::chrono::nanoseconds time{0};
};

// The logical graph the chip inferred, for the run summary and for tests.
struct graph_edge {
    std::uint64_t pred, succ;
    edge_source source;
    int arg;
};
struct graph_task {
    std::uint64_t id;
    func kernel;
    std::uint32_t block_num;
    std::vector<dfx::arg_type> arg_types;
    std::uint32_t scalars;
    std::vector<int> dumps;
};

class chip;

// The runtime API an orchestration calls (a device runtime's ops table).
struct arg_spec {
    dfx::arg_type type = dfx::arg_type::input;
    tensor t{};                      // unused for OUTPUT
    std::uint32_t rows = 0, cols = 0;  // OUTPUT: the shape the runtime allocates
};
inline arg_spec in(const tensor& t) { return {dfx::arg_type::input, t, 0, 0}; }
inline arg_spec inout(const tensor& t) { return {dfx::arg_type::inout, t, 0, 0}; }
inline arg_spec out_existing(const tensor& t) { return {dfx::arg_type::output_existing, t, 0, 0}; }
inline arg_spec out(std::uint32_t rows, std::uint32_t cols) { return {dfx::arg_type::output, {}, rows, cols}; }

struct task_spec {
    func kernel = func::matmul;
    std::vector<arg_spec> args;
    std::array<float, 4> scalars{};
    std::uint32_t block_num = 1;      // > 1: SPMD, one dispatch per block
    std::vector<std::uint64_t> deps;  // explicit dependencies (task ids)

    std::vector<int> dumps;           // arguments a level-1 args dump captures (the dumps=[...] surface)

    task_spec(func k, std::vector<arg_spec> a, std::array<float, 4> s = {}, std::uint32_t blocks = 1,
              std::vector<std::uint64_t> d = {})
        : kernel(k), args(std::move(a)), scalars(s), block_num(blocks), deps(std::move(d)) {}

    task_spec&& dump(std::initializer_list<int> arg_indices) && {
        // One by one: g++ 12 at -O3 warns falsely (-Wstringop-overflow) inside
        // libstdc++'s range insert here, and the lists are a few indices long.
        for (const int i : arg_indices) dumps.push_back(i);
        return std::move(*this);
    }
};

struct submitted {
    std::uint64_t id = 0;
    std::vector<tensor> outputs;  // the runtime-allocated OUTPUT arguments, in order
};

class orchestrator_api {
public:
    virtual ~orchestrator_api() = default;
    virtual void scope_begin(const char* file, int line) = 0;
    virtual void scope_end() noexcept = 0;
    virtual submitted submit(const task_spec& spec) = 0;
};

// A user scope, RAII: records the caller's file and line as its site. A
// scope left by an exception (the run is failing) is not ended: after a
// fatal error the runtime records nothing more.
class scope {
public:
    explicit scope(orchestrator_api& o, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : o_(o), unwinding_(std::uncaught_exceptions()) {
        o_.scope_begin(file, line);
    }
    ~scope() {
        if (std::uncaught_exceptions() == unwinding_) o_.scope_end();
    }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

private:
    orchestrator_api& o_;
    int unwinding_;
};

class workload;

class chip {
public:
    explicit chip(const chip_options& options) : options_(options) {
        for (int r = 0; r < ring_count; ++r)
            rings_.push_back(std::make_unique<ring>(r, options.rings[static_cast<std::size_t>(r)],
                                                    heap_base + std::uint64_t(r) * heap_spacing));
        const std::uint32_t cores = options.aic_cores + options.aiv_cores;
        for (std::uint32_t i = 0; i < cores; ++i) {
            auto c = std::make_unique<core_state>();
            c->id = i;
            c->type = i < options.aic_cores ? dfx::core_type::aic : dfx::core_type::aiv;
            c->owner = i % options.scheduler_threads;
            cores_.push_back(std::move(c));
        }
        wake_ = std::make_unique<std::atomic<std::uint32_t>[]>(options.scheduler_threads);
    }

    const chip_options& options() const { return options_; }
    std::uint32_t core_count() const { return static_cast<std::uint32_t>(cores_.size()); }
    core_state& core(std::uint32_t i) { return *cores_[i]; }
    ring& ring_at(int r) { return *rings_[static_cast<std::size_t>(r)]; }
    std::vector<int> core_to_thread() const {
        std::vector<int> map;
        for (const auto& c : cores_) map.push_back(static_cast<int>(c->owner));
        return map;
    }

    // ---- memory ----

    // An external (GM) buffer, zero-filled, at a deterministic address.
    buffer& alloc_gm(std::uint32_t rows, std::uint32_t cols) {
        auto& storage = gm_storage_.emplace_back(std::size_t{rows} * cols, 0.0f);
        buffer& b = buffers_.emplace_back();
        b.addr = gm_next_;
        b.data = storage.data();
        b.rows = rows;
        b.cols = cols;
        gm_next_ += (b.bytes() + 4095) / 4096 * 4096;
        return b;
    }
    buffer& new_heap_buffer(const buffer& b) { return buffers_.emplace_back(b); }

    // ---- tasks (orchestrator thread) ----

    task& new_task() { return tasks_.emplace_back(); }
    task* find_task(std::uint64_t id) const {
        const auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : it->second;
    }
    void index_task(task& t) { by_id_[t.id] = &t; }
    tensor_map& tmap() { return tmap_; }

    // Wires `t` to each live producer; returns the edges wired (the dep pool
    // entries they take). A producer already releasable is finished and about
    // to retire: nothing to wait for, nothing to hold.
    std::uint32_t wire(task& t, const std::vector<task*>& producers) {
        std::uint32_t wired = 0;
        for (task* p : producers) {
            std::lock_guard lock(p->m);
            if (p->slot.releasable.load(std::memory_order_relaxed)) continue;
            ++p->fanout_refs;
            t.producers.push_back(p);
            ++wired;
            if (!p->completed) {
                p->consumers.push_back(&t);
                t.pending.fetch_add(1, std::memory_order_relaxed);
            }
        }
        return wired;
    }
    std::uint32_t live_producers(const std::vector<task*>& producers) const {
        std::uint32_t n = 0;
        for (const task* p : producers) n += !p->slot.releasable.load(std::memory_order_acquire);
        return n;
    }

    // Ends the submit: the task becomes ready unless a producer is pending.
    void publish(task& t) {
        submitted_.fetch_add(1, std::memory_order_release);
        if (t.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) push_ready(&t);
    }

    void end_scope_of(task& t) {
        std::lock_guard lock(t.m);
        t.scope_held = false;
        update_releasable(t);
    }

    // ---- scheduler side ----

    ready_queue& queue(dfx::core_type type) { return type == dfx::core_type::aic ? aic_ready_ : aiv_ready_; }
    dfx::queue_depths depths() const {
        return {static_cast<std::int16_t>(aic_ready_.size()), static_cast<std::int16_t>(aiv_ready_.size()), 0};
    }

    // True when this block was the task's last.
    static bool block_done(task& t) {
        return t.blocks_done.fetch_add(1, std::memory_order_acq_rel) + 1 == t.block_num;
    }

    // The task finished: release what it holds and wake its consumers.
    // Returns how many consumers became ready.
    std::uint32_t complete(task& t) {
        std::vector<task*> consumers;
        {
            std::lock_guard lock(t.m);
            t.completed = true;
            consumers.swap(t.consumers);
            update_releasable(t);
        }
        for (task* p : t.producers) {
            std::lock_guard lock(p->m);
            --p->fanout_refs;
            update_releasable(*p);
        }
        std::uint32_t ready = 0;
        for (task* c : consumers)
            if (c->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                push_ready(c);
                ++ready;
            }
        // After the releases above: an orchestrator that sees every task
        // completed knows only open scopes still hold ring space.
        completed_.fetch_add(1, std::memory_order_release);
        if (drained()) wake_all_schedulers();  // the last task: the other schedulers may be asleep
        return ready;
    }

    // Retires what can be retired in every ring; returns the tasks retired.
    std::uint32_t reclaim() {
        std::uint32_t tasks = 0;
        for (auto& r : rings_) {
            const reclaimed got = r->reclaim();
            tasks += got.tasks;
            if (got.tensormap_entries) tensormap_live_.fetch_sub(got.tensormap_entries, std::memory_order_relaxed);
        }
        if (tasks) retired_.fetch_add(tasks, std::memory_order_relaxed);
        return tasks;
    }

    // ---- wake-ups ----

    std::atomic<std::uint32_t>& wake(unsigned thread) { return wake_[thread]; }
    void wake_scheduler(unsigned thread) {
        wake_[thread].fetch_add(1, std::memory_order_release);
        wake_[thread].notify_one();
    }
    void wake_all_schedulers() {
        for (unsigned t = 0; t < options_.scheduler_threads; ++t) wake_scheduler(t);
    }
    // Something completed or retired: an orchestrator waiting for ring space re-checks.
    std::atomic<std::uint32_t>& progress() { return progress_; }
    void notify_progress() {
        progress_.fetch_add(1, std::memory_order_release);
        progress_.notify_all();
    }

    // The orchestration has ended (normally or by a fatal error).
    void orchestration_done() {
        orchestration_done_.store(true, std::memory_order_release);
        wake_all_schedulers();
    }
    // Every submitted task has completed and nothing more will come.
    bool drained() const {
        return orchestration_done_.load(std::memory_order_acquire) &&
               completed_.load(std::memory_order_acquire) == submitted_.load(std::memory_order_acquire);
    }
    bool all_completed() const {
        return completed_.load(std::memory_order_acquire) == submitted_.load(std::memory_order_acquire);
    }

    // ---- statistics ----

    std::atomic<std::int32_t>& tensormap_live() { return tensormap_live_; }
    std::uint64_t submitted_count() const { return submitted_.load(); }
    std::uint64_t completed_count() const { return completed_.load(); }
    std::uint64_t retired_count() const { return retired_.load(); }
    std::atomic<std::uint64_t>& dispatches() { return dispatches_; }
    std::uint64_t wired_edges = 0;  // orchestrator thread
    std::array<std::array<stall_stats, 3>, ring_count> stalls{};  // [ring][resource], orchestrator thread
    std::vector<graph_task> graph_tasks;                          // orchestrator thread
    std::vector<graph_edge> graph_edges;
    std::string fatal_message;  // set by the orchestrator thread before it ends

    // Builds the kernel's view of a task's arguments for one block.
    static kernel_call make_call(const task& t, std::uint32_t block) {
        kernel_call call;
        for (std::size_t i = 0; i < t.args.size(); ++i) call.args[i] = t.args[i].ref();
        call.scalars = t.scalars;
        call.block = block;
        call.block_num = t.block_num;
        return call;
    }

    // Simulated address map: GM from 256 MiB, ring heaps 16 GiB apart from 16 GiB.
    static constexpr std::uint64_t gm_base = 0x1000'0000ULL;
    static constexpr std::uint64_t heap_base = 0x4'0000'0000ULL;
    static constexpr std::uint64_t heap_spacing = 0x4'0000'0000ULL;

private:
    static void update_releasable(task& t) {
        if (t.completed && !t.scope_held && t.fanout_refs == 0) t.slot.releasable.store(true, std::memory_order_release);
    }
    void push_ready(task* t) {
        queue(t->kernel->core).push(t);
        wake_all_schedulers();
    }

    chip_options options_;
    std::vector<std::unique_ptr<ring>> rings_;
    std::vector<std::unique_ptr<core_state>> cores_;
    ready_queue aic_ready_, aiv_ready_;
    std::unique_ptr<std::atomic<std::uint32_t>[]> wake_;
    std::atomic<std::uint32_t> progress_{0};

    std::deque<std::vector<float>> gm_storage_;
    std::uint64_t gm_next_ = gm_base;
    std::deque<buffer> buffers_;  // stable addresses: tensors point into it
    std::deque<task> tasks_;      // stable addresses: the scheduler holds task*
    std::unordered_map<std::uint64_t, task*> by_id_;
    tensor_map tmap_;

    std::atomic<bool> orchestration_done_{false};
    std::atomic<std::uint64_t> submitted_{0}, completed_{0}, retired_{0}, dispatches_{0};
    std::atomic<std::int32_t> tensormap_live_{0};
};

// The workloads' interface: inputs in GM, the orchestration, the check.
class workload {
public:
    virtual ~workload() = default;
    virtual void prepare(chip& c) = 0;                  // allocate and fill the inputs
    virtual void orchestrate(orchestrator_api& o) = 0;  // runs inside the root scope
    // Compares the outputs with a straightforward reference; returns the
    // largest error found and whether it is within tolerance.
    struct check_result {
        bool ok = false;
        double max_error = 0.0;
        std::string detail;
    };
    virtual check_result check() const = 0;
};

}  // namespace sim
