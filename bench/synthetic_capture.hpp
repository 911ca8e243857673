// Synthetic converter inputs for convert_bench: a level-4 chip swimlane
// capture with its deps.json, and a scope_stats.jsonl, of N tasks.
//
// The capture follows the shape of ../shared/spec/reference-performance.md's
// inputs (24 cores: 8 AIC + 16 AIV, 3 scheduler threads, about 3 AICore rows
// and 4.5 scheduler records per task; 10k tasks ~ 12 MB of records) and the
// model of bench/gen_swimlane_records.py: plain, MIX and SPMD tasks, 1-3
// predecessors among the last 50 tasks, ring fills that never exceed their
// capacity. It is written in C++ and kept in compact structs so that 10^7
// tasks (a 12 GB records file) take seconds and a few GB, not the Python
// generator's hours and tens of GB.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace bench_inputs {

namespace detail {

class rng {
public:
    explicit rng(std::uint64_t seed) : gen_(seed) {}
    // Uniform in [lo, hi).
    std::int64_t range(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(gen_() % static_cast<std::uint64_t>(hi - lo));
    }
    double real() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
    std::uint64_t bits63() { return gen_() >> 1; }

private:
    std::mt19937_64 gen_;
};

// Buffered output with a clear error naming the file.
class out_file {
public:
    explicit out_file(const std::filesystem::path& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
        if (f_ == nullptr) throw std::runtime_error(path_.string() + ": cannot create");
        std::setvbuf(f_, nullptr, _IOFBF, 1 << 22);
    }
    out_file(const out_file&) = delete;
    out_file& operator=(const out_file&) = delete;
    ~out_file() {
        if (f_ != nullptr) std::fclose(f_);
    }
    template <class... Args>
    void print(fmt::format_string<Args...> format, Args&&... args) {
        fmt::print(f_, format, std::forward<Args>(args)...);
    }
    void close() {
        const bool ok = std::ferror(f_) == 0;
        if (std::fclose(f_) != 0 || !ok) {
            f_ = nullptr;
            throw std::runtime_error(path_.string() + ": write failed");
        }
        f_ = nullptr;
    }

private:
    std::filesystem::path path_;
    std::FILE* f_;
};

}  // namespace detail

// Writes <dir>/chip_swimlane_records.json and <dir>/deps.json for `tasks` tasks.
inline void write_swimlane_capture(const std::filesystem::path& dir, std::uint64_t tasks, std::uint64_t seed = 1) {
    using detail::rng;
    constexpr int cores = 24, aic = 8, threads = 3;
    struct aicore_row {
        std::uint64_t task, start, stop;
        std::uint32_t reg, receive;
    };
    struct aicpu_row {
        std::uint64_t dispatch, finish;
        std::uint32_t reg;
    };
    struct sched_rec {
        std::uint64_t start, end, loop;
        std::uint32_t pop_miss;
        bool dispatch;
    };
    struct task_meta {
        std::array<int, 3> kids;
        int blocks;
        int preds;
        std::array<std::uint64_t, 3> pred;
    };

    rng r(seed);
    std::array<std::uint64_t, cores> core_free{}, core_reg{};
    core_free.fill(1'000'000);
    std::array<std::vector<aicore_row>, cores> aicore;
    std::array<std::vector<aicpu_row>, cores> aicpu;
    std::array<std::vector<sched_rec>, threads> sched;
    std::array<std::uint64_t, threads> loop{};
    std::vector<std::uint64_t> end_of(tasks);
    std::vector<task_meta> meta(tasks);

    std::vector<int> on;
    for (std::uint64_t i = 0; i < tasks; ++i) {
        const std::uint64_t tid = (std::uint64_t{1} << 32) | i;
        task_meta& m = meta[i];
        const double kind = r.real();
        on.clear();
        if (kind < 0.2) {
            on.push_back(static_cast<int>(r.range(0, aic)));
            m.kids = {static_cast<int>(r.range(0, 4)), -1, -1};
            m.blocks = 1;
        } else if (kind < 0.35) {  // MIX: one AIC and two AIV of its cluster
            const int c = static_cast<int>(r.range(0, aic));
            on = {c, aic + 2 * c, aic + 1 + 2 * c};
            m.kids = {11, 12, 12};
            m.blocks = 1;
        } else if (kind < 0.55) {  // SPMD over several distinct AIV cores
            m.blocks = static_cast<int>(r.range(4, 9));
            while (static_cast<int>(on.size()) < m.blocks) {
                const int c = static_cast<int>(r.range(aic, cores));
                if (std::find(on.begin(), on.end(), c) == on.end()) on.push_back(c);
            }
            m.kids = {-1, 10, -1};
        } else {
            on.push_back(static_cast<int>(r.range(aic, cores)));
            m.kids = {-1, static_cast<int>(r.range(4, 10)), -1};
            m.blocks = 1;
        }
        m.preds = static_cast<int>(std::min<std::uint64_t>(i, static_cast<std::uint64_t>(r.range(1, 4))));
        std::uint64_t ready = 1'000'000;
        for (int k = 0; k < m.preds; ++k) {
            std::uint64_t p;
            do {
                p = i - 1 - static_cast<std::uint64_t>(r.range(0, static_cast<std::int64_t>(std::min<std::uint64_t>(i, 50))));
            } while (std::find(m.pred.begin(), m.pred.begin() + k, p) != m.pred.begin() + k);
            m.pred[static_cast<std::size_t>(k)] = p;
            ready = std::max(ready, end_of[p]);
        }
        std::uint64_t end = 0;
        for (int c : on) {
            const auto cs = static_cast<std::size_t>(c);
            const auto thread = static_cast<std::size_t>(c % threads);
            const std::uint64_t dispatch = std::max(ready, core_free[cs]) + static_cast<std::uint64_t>(r.range(5, 30));
            const std::uint64_t start = dispatch + static_cast<std::uint64_t>(r.range(15, 40));
            const std::uint64_t stop = start + static_cast<std::uint64_t>(r.range(150, 1200));
            const std::uint64_t finish = stop + static_cast<std::uint64_t>(r.range(5, 25));
            ++core_reg[cs];
            aicore[cs].push_back({tid, start, stop, static_cast<std::uint32_t>(core_reg[cs]),
                                  static_cast<std::uint32_t>(r.range(5, 20))});
            aicpu[cs].push_back({dispatch, finish, static_cast<std::uint32_t>(core_reg[cs])});
            loop[thread] += static_cast<std::uint64_t>(r.range(1, 40));
            sched[thread].push_back({dispatch - 8, dispatch + 2, loop[thread], static_cast<std::uint32_t>(r.range(0, 50)), true});
            loop[thread] += static_cast<std::uint64_t>(r.range(1, 40));
            sched[thread].push_back({finish - 3, finish + 12, loop[thread], 0, false});
            core_free[cs] = finish;
            end = std::max(end, stop);
        }
        end_of[i] = end;
    }
    end_of = {};

    std::filesystem::create_directories(dir);
    {
        detail::out_file f(dir / "chip_swimlane_records.json");
        f.print("{{\n  \"chip_swimlane_level\": 4,\n  \"metadata\": {{\n    \"clock_freq_hz\": 50000000,\n"
                "    \"num_cores\": 24,\n    \"core_types\": [");
        for (int c = 0; c < cores; ++c) f.print("{}\"{}\"", c ? ", " : "", c < aic ? "aic" : "aiv");
        f.print("],\n    \"core_to_thread\": [");
        for (int c = 0; c < cores; ++c) f.print("{}{}", c ? ", " : "", c % threads);
        f.print("]\n  }},\n  \"aicore_tasks\": [\n");
        const char* sep = "";
        for (int c = 0; c < cores; ++c)
            for (const auto& a : aicore[static_cast<std::size_t>(c)]) {
                f.print("{}    [{}, {}, {}, {}, {}, {}]", sep, c, a.task, a.reg, a.start, a.stop, a.receive);
                sep = ",\n";
            }
        f.print("\n  ],\n  \"aicpu_tasks\": [\n");
        sep = "";
        for (int c = 0; c < cores; ++c)
            for (const auto& a : aicpu[static_cast<std::size_t>(c)]) {
                f.print("{}    [{}, {}, {}, {}]", sep, c, a.reg, a.dispatch, a.finish);
                sep = ",\n";
            }
        aicore = {};
        aicpu = {};
        f.print("\n  ],\n  \"aicpu_scheduler_phases\": [\n");
        for (int t = 0; t < 4; ++t) {
            f.print("    [\n");
            if (t < threads) {
                auto& recs = sched[static_cast<std::size_t>(t)];
                // A scheduler thread emits its phases in the order it runs them.
                std::stable_sort(recs.begin(), recs.end(), [](const sched_rec& a, const sched_rec& b) { return a.start < b.start; });
                sep = "";
                for (const auto& s : recs) {
                    if (s.dispatch)
                        f.print("{}      {{\"kind\": \"dispatch\", \"start_cycles\": {}, \"end_cycles\": {}, \"loop_iter\": {}, "
                                "\"tasks_processed\": 1, \"pop_hit\": 1, \"pop_miss\": {}, \"shared_at_start\": [1,0,0], "
                                "\"shared_at_end\": [0,0,0]}}",
                                sep, s.start, s.end, s.loop, s.pop_miss);
                    else
                        f.print("{}      {{\"kind\": \"complete\", \"start_cycles\": {}, \"end_cycles\": {}, \"loop_iter\": {}, "
                                "\"tasks_processed\": 1, \"shared_at_start\": [0,0,0], \"shared_at_end\": [0,1,0]}}",
                                sep, s.start, s.end, s.loop);
                    sep = ",\n";
                }
                recs = {};
            }
            f.print("\n    ]{}", t < 3 ? ",\n" : "\n");
        }
        f.print("  ],\n  \"aicpu_orchestrator_phases\": [\n    [\n");
        for (std::uint64_t i = 0; i < tasks; ++i)
            f.print("{}      {{\"submit_idx\": {}, \"task_id\": {}, \"start_cycles\": {}, \"end_cycles\": {}}}", i ? ",\n" : "", i,
                    (std::uint64_t{1} << 32) | i, 900'000 + 70 * i, 900'000 + 70 * i + 60);
        f.print("\n    ]\n  ]\n}}\n");
        f.close();
    }
    {
        detail::out_file f(dir / "deps.json");
        f.print("{{\n  \"tasks\": [\n");
        for (std::uint64_t i = 0; i < tasks; ++i) {
            const auto& m = meta[i];
            f.print("{}    {{\"task_id\": \"{}\", \"scope\": \"auto\", \"early_dispatch\": false, \"kernel_ids\": [{}, {}, {}], "
                    "\"block_num\": {}, \"args\": [{{\"idx\": 0, \"type\": \"INPUT\", \"tensor_id\": \"{}\", \"dtype\": "
                    "\"FLOAT16\", \"shape\": [16, 128], \"start_offset\": \"0\", \"strides\": [128, 1]}}, {{\"idx\": 1, "
                    "\"type\": \"OUTPUT\"}}]}}",
                    i ? ",\n" : "", (std::uint64_t{1} << 32) | i, m.kids[0], m.kids[1], m.kids[2], m.blocks, r.bits63());
        }
        f.print("\n  ],\n  \"tensors\": [],\n  \"edges\": [\n");
        const char* sep = "";
        for (std::uint64_t i = 0; i < tasks; ++i)
            for (int k = 0; k < meta[i].preds; ++k) {
                f.print("{}    {{\"pred\": \"{}\", \"succ\": \"{}\", \"arg\": 0, \"source\": \"creator\", \"flags\": [\"wait\", "
                        "\"retain\"], \"tensor_id\": \"{}\", \"consumer_dtype\": \"FLOAT16\", \"consumer_shape\": [16, 128], "
                        "\"consumer_start_offset\": \"0\", \"consumer_strides\": [128, 1]}}",
                        sep, (std::uint64_t{1} << 32) | meta[i].pred[static_cast<std::size_t>(k)], (std::uint64_t{1} << 32) | i,
                        r.bits63());
                sep = ",\n";
            }
        f.print("\n  ]\n}}\n");
        f.close();
    }
}

// Writes a scope_stats.jsonl (schema v6) of an orchestrator submitting
// `tasks` tasks in scopes of 1-8 tasks on rings 0-3 (about N / 2 records):
// the model of bench/gen_scope_stats.py.
inline void write_scope_stats(const std::filesystem::path& file, std::uint64_t tasks, std::uint64_t seed = 1) {
    constexpr int rings = 4;
    constexpr std::int64_t window = 16384, heap = 268435456, dep_pool = 16384;
    constexpr std::array<const char*, 5> sites = {"attn_orch.cpp:118", "attn_orch.cpp:131", "ffn_orch.cpp:42",
                                                  "moe_orch.cpp:77", "norm_orch.cpp:12"};
    constexpr std::array<int, 6> depth_choice = {0, 1, 1, 2, 2, 3};
    constexpr std::array<std::int64_t, 4> heap_choice = {512, 1024, 4096, 16384};
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
    detail::out_file f(file);
    // The header carries the record count, known only at the end: the same
    // seeded run goes twice, counting, then writing.
    const auto run = [&](bool write) {
        detail::rng r(seed);
        std::array<std::array<std::int64_t, 6>, rings> s{};  // per ring: window, heap, dep pool (start, end)
        for (auto& ring : s) ring[4] = ring[5] = 1;
        std::int64_t tensormap = 0;
        std::uint64_t records = 0;
        const auto record = [&](const char* site, const char* phase, int depth) {
            ++records;
            if (!write) return;
            const auto& v = s[static_cast<std::size_t>(depth)];
            f.print("{{\"site\": \"{}\", \"phase\": \"{}\", \"depth\": {}, \"ring\": {}, \"task_window_start\": {}, "
                    "\"task_window_end\": {}, \"heap_start\": {}, \"heap_end\": {}, \"dep_pool_start\": {}, \"dep_pool_end\": {}, "
                    "\"tensormap\": {}}}\n",
                    site, phase, depth, depth, v[0], v[1], v[2], v[3], v[4], v[5], tensormap);
        };
        for (std::uint64_t done = 0; done < tasks;) {
            const int depth = depth_choice[static_cast<std::size_t>(r.range(0, 6))];
            const char* site = sites[static_cast<std::size_t>(r.range(0, 5))];
            record(site, "begin", depth);
            const auto n = std::min<std::uint64_t>(static_cast<std::uint64_t>(r.range(1, 9)), tasks - done);
            auto& v = s[static_cast<std::size_t>(depth)];
            for (std::uint64_t k = 0; k < n; ++k) {
                v[1] += 1;
                v[3] += heap_choice[static_cast<std::size_t>(r.range(0, 4))];
                v[5] += r.range(1, 5);
            }
            // The consumer retires older work (starts chase ends), and a full
            // ring stalls the orchestrator: occupancy never exceeds capacity.
            v[0] += r.range(0, 1 << 20) % (v[1] - v[0] + 1);
            v[2] += (v[3] - v[2]) * (r.range(0, 1 << 20) % 5) / 4;
            v[4] += r.range(0, 1 << 20) % (v[5] - v[4] + 1);
            const auto spread = 2 * static_cast<std::int64_t>(n) + 2;
            tensormap = std::clamp<std::int64_t>(tensormap + r.range(0, spread) - static_cast<std::int64_t>(n), 0, 65536);
            v[0] = std::max(v[0], v[1] - window);
            v[2] = std::max(v[2], v[3] - heap);
            v[4] = std::max(v[4], v[5] - dep_pool);
            record(site, "end", depth);
            done += n;
        }
        return records;
    };
    f.print("{{\"version\": 6, \"fatal\": false, \"dropped\": 0, \"total\": {3}, \"task_window_max\": [{0}, {0}, {0}, {0}], "
            "\"heap_max\": [{1}, {1}, {1}, {1}], \"dep_pool_max\": [{2}, {2}, {2}, {2}], \"tensormap_max\": 65536}}\n",
            window, heap, dep_pool, run(false));
    run(true);
    f.close();
}

}  // namespace bench_inputs
