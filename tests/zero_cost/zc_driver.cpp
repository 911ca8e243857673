// Runs the three sample loops once on deterministic input, for callgrind to
// count their instructions. Prints a checksum of everything they produced, so
// the checker can also confirm that the variants compute the same results.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sample_loops.hpp"

int main(int argc, char** argv) {
    const std::uint32_t n_tasks = argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 10000;

    // A fixed-seed LCG: same input on every run, every variant.
    std::uint64_t state = 0x2545F4914F6CDD1DULL;
    auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>(state >> 33);
    };

    std::vector<std::uint32_t> data(4096 + 64);
    for (auto& word : data) word = next();

    std::vector<dfx_zc_task> tasks(n_tasks);
    for (std::uint32_t i = 0; i < n_tasks; ++i) {
        tasks[i] = dfx_zc_task{(std::uint64_t{i % 4} << 32) | i, i + 1, next() % dfx_zc_max_cores,
                               next() % 4096, 8 + next() % 57};
    }

    static volatile std::uint32_t regs[dfx_zc_max_cores];
    std::vector<dfx_zc_descriptor> descriptors(n_tasks);

    const std::uint64_t worker_sum = dfx_zc_worker_loop(tasks.data(), n_tasks, data.data());
    dfx_zc_scheduler_loop(tasks.data(), n_tasks, regs);
    dfx_zc_orchestrator_loop(1000, n_tasks, descriptors.data());

    std::uint64_t regs_sum = 0;
    for (const auto& reg : regs) regs_sum += reg;
    std::uint64_t desc_sum = 0;
    for (const auto& d : descriptors) desc_sum += d.task_id + d.args[0] + d.args[1] + d.args[2] + d.kind + d.fanin;

    std::printf("worker=%llu scheduler=%llu orchestrator=%llu records=%llu\n",
                static_cast<unsigned long long>(worker_sum), static_cast<unsigned long long>(regs_sum),
                static_cast<unsigned long long>(desc_sum),
                static_cast<unsigned long long>(dfx_zc_records_pushed()));
    return 0;
}
