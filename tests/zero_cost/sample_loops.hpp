// Shared by the sample loops, the sink and the driver: plain data types and
// the three loops' names. Nothing here depends on the variant being built, so
// every variant exports the same extern "C" functions with the same signatures
// and the checker can compare them by name.
#pragma once

#include <cstdint>

// One task as the scheduler and the worker see it.
struct dfx_zc_task {
    std::uint64_t token;   // ring << 32 | local id
    std::uint32_t reg_id;  // per-core dispatch token
    std::uint32_t core;    // the core it is dispatched to
    std::uint32_t offset;  // the kernel's input slice
    std::uint32_t length;
};

// What the orchestrator builds per submitted task.
struct dfx_zc_descriptor {
    std::uint64_t task_id;
    std::uint64_t args[3];
    std::uint32_t kind;
    std::uint32_t fanin;
};

inline constexpr std::uint32_t dfx_zc_max_cores = 64;

extern "C" {
// AICore worker: run each task's kernel (a slice sum); returns the sum of all slices.
std::uint64_t dfx_zc_worker_loop(const dfx_zc_task* tasks, std::uint32_t n_tasks, const std::uint32_t* data);
// AICPU scheduler: dispatch each task to its core's register and observe the completion.
void dfx_zc_scheduler_loop(const dfx_zc_task* tasks, std::uint32_t n_tasks, volatile std::uint32_t* regs);
// Orchestrator: build one descriptor per submitted task.
void dfx_zc_orchestrator_loop(std::uint64_t first_id, std::uint32_t n_tasks, dfx_zc_descriptor* out);

// Written only by the sabotage variant (defined in sample_sink.cpp).
extern volatile std::uint32_t dfx_zc_sabotage_cell;
// Records received by the sink, all kinds (defined in sample_sink.cpp).
std::uint64_t dfx_zc_records_pushed() noexcept;
}
