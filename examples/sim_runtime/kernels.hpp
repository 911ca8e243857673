// The simulated chip's kernels: real (small) computations on real float
// buffers, run by the AICore worker threads. Each kernel has a func id, a
// name (the name map is written from this table) and the core type it runs
// on. SPMD kernels split their rows over block_num blocks; block `b` of `n`
// computes rows [b*rows/n, (b+1)*rows/n) of its output, so the blocks of one
// task never write the same element.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "dfx/output/name_map.hpp"
#include "dfx/record/core_type.hpp"

namespace sim {

// A 2-D row-major window into a float buffer: the only layout the kernels see.
struct matrix_ref {
    float* data = nullptr;   // element (0, 0)
    std::uint32_t rows = 0;
    std::uint32_t cols = 0;
    std::uint32_t stride = 0;  // elements between rows

    float& at(std::uint32_t r, std::uint32_t c) const { return data[std::size_t{r} * stride + c]; }
};

inline constexpr int max_kernel_args = 4;

// What a worker hands a kernel: its tensor arguments in submit order, the
// task's scalars, and which SPMD block this is.
struct kernel_call {
    std::array<matrix_ref, max_kernel_args> args{};
    std::array<float, 4> scalars{};
    std::uint32_t block = 0;
    std::uint32_t block_num = 1;

    // The rows of an `rows`-row output this block owns.
    std::pair<std::uint32_t, std::uint32_t> my_rows(std::uint32_t rows) const {
        return {rows * block / block_num, rows * (block + 1) / block_num};
    }
};

using kernel_fn = void (*)(const kernel_call&);

namespace kernels {

// args: A [M,K] in, B [K,N] in, C [M,N] out.  C = A * B
inline void matmul(const kernel_call& k) {
    const matrix_ref &a = k.args[0], &b = k.args[1], &c = k.args[2];
    const auto [r0, r1] = k.my_rows(c.rows);
    for (std::uint32_t i = r0; i < r1; ++i)
        for (std::uint32_t j = 0; j < c.cols; ++j) {
            float acc = 0.0f;
            for (std::uint32_t p = 0; p < a.cols; ++p) acc += a.at(i, p) * b.at(p, j);
            c.at(i, j) = acc;
        }
}

// args: A [M,K] in, B [K,N] in, C [M,N] inout.  C += A * B
inline void matmul_acc(const kernel_call& k) {
    const matrix_ref &a = k.args[0], &b = k.args[1], &c = k.args[2];
    const auto [r0, r1] = k.my_rows(c.rows);
    for (std::uint32_t i = r0; i < r1; ++i)
        for (std::uint32_t j = 0; j < c.cols; ++j) {
            float acc = 0.0f;
            for (std::uint32_t p = 0; p < a.cols; ++p) acc += a.at(i, p) * b.at(p, j);
            c.at(i, j) += acc;
        }
}

// args: X in, Y out.  Row softmax of scalars[0] * X over the first
// scalars[1] columns (0 = all); the masked tail of each row is written 0.
inline void softmax(const kernel_call& k) {
    const matrix_ref &x = k.args[0], &y = k.args[1];
    const float scale = k.scalars[0];
    const std::uint32_t valid = k.scalars[1] > 0 ? std::min<std::uint32_t>(static_cast<std::uint32_t>(k.scalars[1]), x.cols) : x.cols;
    const auto [r0, r1] = k.my_rows(y.rows);
    for (std::uint32_t i = r0; i < r1; ++i) {
        float max = -INFINITY;
        for (std::uint32_t j = 0; j < valid; ++j) max = std::max(max, scale * x.at(i, j));
        float sum = 0.0f;
        for (std::uint32_t j = 0; j < valid; ++j) {
            const float e = std::exp(scale * x.at(i, j) - max);
            y.at(i, j) = e;
            sum += e;
        }
        for (std::uint32_t j = 0; j < valid; ++j) y.at(i, j) /= sum;
        for (std::uint32_t j = valid; j < y.cols; ++j) y.at(i, j) = 0.0f;
    }
}

// args: A in, B in, C out.  C = A + B
inline void add(const kernel_call& k) {
    const matrix_ref &a = k.args[0], &b = k.args[1], &c = k.args[2];
    const auto [r0, r1] = k.my_rows(c.rows);
    for (std::uint32_t i = r0; i < r1; ++i)
        for (std::uint32_t j = 0; j < c.cols; ++j) c.at(i, j) = a.at(i, j) + b.at(i, j);
}

// args: A in, C out.  C = scalars[0] * A + scalars[1]
inline void scale_bias(const kernel_call& k) {
    const matrix_ref &a = k.args[0], &c = k.args[1];
    const auto [r0, r1] = k.my_rows(c.rows);
    for (std::uint32_t i = r0; i < r1; ++i)
        for (std::uint32_t j = 0; j < c.cols; ++j) c.at(i, j) = k.scalars[0] * a.at(i, j) + k.scalars[1];
}

// args: S in ([n*R, C]: n stacked [R, C] blocks), C out ([R, C]).  C = sum of
// the n = scalars[0] blocks.
inline void reduce_sum(const kernel_call& k) {
    const matrix_ref &s = k.args[0], &c = k.args[1];
    const auto n = static_cast<std::uint32_t>(k.scalars[0]);
    const auto [r0, r1] = k.my_rows(c.rows);
    for (std::uint32_t i = r0; i < r1; ++i)
        for (std::uint32_t j = 0; j < c.cols; ++j) {
            float acc = 0.0f;
            for (std::uint32_t b = 0; b < n; ++b) acc += s.at(b * c.rows + i, j);
            c.at(i, j) = acc;
        }
}

}  // namespace kernels

// The chip's kernel table. Func ids are the registration order, as a
// kernel_config.py would number them; the paged-attention kernels have their
// own ids (QK, SF, PV), as a compiled program would, although they share code
// with the generic ones.
enum class func : std::int32_t { matmul, matmul_acc, softmax, add, scale_bias, reduce_sum, qk, sf, pv };

struct kernel_info {
    func id;
    std::string_view name;
    dfx::core_type core;
    kernel_fn run;
    std::uint8_t scalars;  // how many of the task's scalars the kernel reads
};

inline constexpr std::array<kernel_info, 9> kernel_table{{
    {func::matmul, "matmul", dfx::core_type::aic, kernels::matmul, 0},
    {func::matmul_acc, "matmul_acc", dfx::core_type::aic, kernels::matmul_acc, 0},
    {func::softmax, "softmax", dfx::core_type::aiv, kernels::softmax, 2},
    {func::add, "add", dfx::core_type::aiv, kernels::add, 0},
    {func::scale_bias, "scale_bias", dfx::core_type::aiv, kernels::scale_bias, 2},
    {func::reduce_sum, "reduce_sum", dfx::core_type::aiv, kernels::reduce_sum, 1},
    {func::qk, "QK", dfx::core_type::aic, kernels::matmul, 0},
    {func::sf, "SF", dfx::core_type::aiv, kernels::softmax, 2},
    {func::pv, "PV", dfx::core_type::aic, kernels::matmul_acc, 0},
}};

inline const kernel_info& kernel(func id) { return kernel_table[static_cast<std::size_t>(id)]; }

// The name map's source: func id -> name, in registration order.
inline dfx::kernel_table name_table() {
    dfx::kernel_table table;
    for (const auto& k : kernel_table) table.add(static_cast<std::int64_t>(k.id), std::string(k.name));
    return table;
}

}  // namespace sim
