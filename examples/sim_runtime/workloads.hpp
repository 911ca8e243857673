// The workloads dfx-sim runs (--workload): each allocates and fills its
// inputs from the seed, orchestrates its task graph inside nested scopes, and
// checks its outputs against a straightforward double-precision reference.
//
//   chain            48 tasks in one sequence: 12 scopes of matmul -> scale_bias
//                    -> (nested scope) softmax -> add; data flows through heap
//                    outputs (creator edges) inside a scope and through GM
//                    between scopes (tensor-map edges).
//   fanout           3 rounds of one source, 16 two-task branches (each in its
//                    own nested scope), a fan-in reduce ordered by 16 explicit
//                    deps (it reads a buffer the tensor map does not track),
//                    and a final task.
//   spmd             6 iterations of three SPMD kernels (block_num 4) over a
//                    64x64 matrix: every task is spread over several cores.
//   paged_attention  decode attention over a paged KV cache: the block table
//                    and the sequence lengths (tensor values) decide which QK /
//                    SF / PV tasks are submitted and which KV blocks they read.
//   stream           a long run of N tiny tasks (--tasks, default 100000) for
//                    throughput: 4 independent streams, each in steps of 4
//                    lanes (fan-out from its state, each lane a chain through
//                    its own INOUT block) and one fan-in reduce back into the
//                    state; 4x4 kernels, so the
//                    runtime's own per-task cost is what a run measures.
//
// Each workload marks one argument per step for a level-1 args dump (the
// dumps=[...] surface); level 2 captures everything.
//
// The rule every orchestration keeps: a heap output (out(rows, cols)) is
// read only by tasks submitted before the producer's scope ends; values that
// outlive a scope go through GM buffers (chip.hpp checks this).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "chip.hpp"

namespace sim {

inline constexpr std::string_view workload_names[] = {"chain", "fanout", "spmd", "paged_attention", "stream"};

// --tasks for the stream workload: its default and accepted range.
inline constexpr std::uint64_t stream_default_tasks = 100000, stream_max_tasks = 10000000;

namespace detail {

// A plain row-major matrix in double precision, for the references.
struct dmat {
    std::uint32_t rows = 0, cols = 0;
    std::vector<double> v;
    dmat(std::uint32_t r, std::uint32_t c) : rows(r), cols(c), v(std::size_t{r} * c, 0.0) {}
    double& at(std::uint32_t r, std::uint32_t c) { return v[std::size_t{r} * cols + c]; }
    double at(std::uint32_t r, std::uint32_t c) const { return v[std::size_t{r} * cols + c]; }
};

inline dmat read(const tensor& t) {
    dmat m(t.rows, t.cols);
    const matrix_ref r = t.ref();
    for (std::uint32_t i = 0; i < t.rows; ++i)
        for (std::uint32_t j = 0; j < t.cols; ++j) m.at(i, j) = r.at(i, j);
    return m;
}

inline dmat matmul(const dmat& a, const dmat& b) {
    dmat c(a.rows, b.cols);
    for (std::uint32_t i = 0; i < a.rows; ++i)
        for (std::uint32_t j = 0; j < b.cols; ++j) {
            double acc = 0.0;
            for (std::uint32_t p = 0; p < a.cols; ++p) acc += a.at(i, p) * b.at(p, j);
            c.at(i, j) = acc;
        }
    return c;
}

inline dmat scale_bias(dmat a, double s, double b) {
    for (auto& x : a.v) x = s * x + b;
    return a;
}

inline dmat softmax(const dmat& a, double scale, std::uint32_t valid) {
    dmat y(a.rows, a.cols);
    for (std::uint32_t i = 0; i < a.rows; ++i) {
        double max = -INFINITY, sum = 0.0;
        for (std::uint32_t j = 0; j < valid; ++j) max = std::max(max, scale * a.at(i, j));
        for (std::uint32_t j = 0; j < valid; ++j) sum += y.at(i, j) = std::exp(scale * a.at(i, j) - max);
        for (std::uint32_t j = 0; j < valid; ++j) y.at(i, j) /= sum;
    }
    return y;
}

inline void fill(buffer& b, std::mt19937_64& rng, float scale) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::size_t i = 0; i < std::size_t{b.rows} * b.cols; ++i) b.data[i] = scale * u(rng);
}

// Compares `got` with `want` element by element, relative to magnitude.
inline workload::check_result compare(const tensor& got, const dmat& want, const std::string& what) {
    workload::check_result r;
    r.ok = true;
    const matrix_ref g = got.ref();
    for (std::uint32_t i = 0; i < want.rows; ++i)
        for (std::uint32_t j = 0; j < want.cols; ++j) {
            const double err = std::abs(double(g.at(i, j)) - want.at(i, j));
            r.max_error = std::max(r.max_error, err);
            if (!(err <= 1e-4 * (1.0 + std::abs(want.at(i, j)))) && r.ok) {  // !(<=) also catches NaN
                r.ok = false;
                r.detail = what + "[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                           std::to_string(g.at(i, j)) + ", reference " + std::to_string(want.at(i, j));
            }
        }
    return r;
}

inline void merge(workload::check_result& into, const workload::check_result& r) {
    into.max_error = std::max(into.max_error, r.max_error);
    if (!r.ok && into.ok) {
        into.ok = false;
        into.detail = r.detail;
    }
}

}  // namespace detail

class chain_workload final : public workload {
public:
    static constexpr std::uint32_t groups = 12, tile = 16;
    explicit chain_workload(std::uint64_t seed) : rng_(seed) {}

    void prepare(chip& c) override {
        x_ = &c.alloc_gm((groups + 1) * tile, tile);  // block g: the chain's value after g groups
        w_ = &c.alloc_gm(groups * tile, tile);
        bias_ = &c.alloc_gm(tile, tile);
        detail::fill(*x_, rng_, 1.0f);  // only block 0 is read before it is written
        detail::fill(*w_, rng_, 0.5f);
        detail::fill(*bias_, rng_, 0.2f);
    }

    void orchestrate(orchestrator_api& o) override {
        const tensor x = tensor::whole(*x_), w = tensor::whole(*w_), bias = tensor::whole(*bias_);
        for (std::uint32_t g = 0; g < groups; ++g) {
            scope group(o);
            const tensor a = o.submit({func::matmul, {in(x.row_block(g * tile, tile)), in(w.row_block(g * tile, tile)),
                                                      out(tile, tile)}})
                                 .outputs[0];
            const tensor b = o.submit({func::scale_bias, {in(a), out(tile, tile)}, {0.5f, 0.1f}}).outputs[0];
            scope inner(o);
            const tensor s = o.submit({func::softmax, {in(b), out(tile, tile)}, {1.0f, 0.0f}}).outputs[0];
            // Marked for a level-1 args dump: the chain's value after each group.
            o.submit(task_spec(func::add, {in(s), in(bias), out_existing(x.row_block((g + 1) * tile, tile))}).dump({2}));
        }
    }

    check_result check() const override {
        const tensor x = tensor::whole(*x_), w = tensor::whole(*w_);
        const detail::dmat bias = detail::read(tensor::whole(*bias_));
        detail::dmat v = detail::read(x.row_block(0, tile));
        check_result result{true, 0.0, {}};
        for (std::uint32_t g = 0; g < groups; ++g) {
            const detail::dmat a = detail::matmul(v, detail::read(w.row_block(g * tile, tile)));
            v = detail::softmax(detail::scale_bias(a, 0.5, 0.1), 1.0, tile);
            for (std::size_t i = 0; i < v.v.size(); ++i) v.v[i] += bias.v[i];
            detail::merge(result, detail::compare(x.row_block((g + 1) * tile, tile), v, "x" + std::to_string(g + 1)));
        }
        return result;
    }

private:
    std::mt19937_64 rng_;
    buffer *x_ = nullptr, *w_ = nullptr, *bias_ = nullptr;
};

class fanout_workload final : public workload {
public:
    static constexpr std::uint32_t rounds = 3, width = 16, tile = 16;
    explicit fanout_workload(std::uint64_t seed) : rng_(seed) {}

    void prepare(chip& c) override {
        x_ = &c.alloc_gm((rounds + 1) * tile, tile);
        w_ = &c.alloc_gm(width * tile, tile);
        z_ = &c.alloc_gm(width * tile, tile);  // branch i writes block i; the reduce reads them all
        detail::fill(*x_, rng_, 1.0f);
        detail::fill(*w_, rng_, 0.5f);
    }

    void orchestrate(orchestrator_api& o) override {
        const tensor x = tensor::whole(*x_), w = tensor::whole(*w_), z = tensor::whole(*z_).manual();
        for (std::uint32_t k = 0; k < rounds; ++k) {
            scope round(o);
            const tensor src =
                o.submit({func::scale_bias, {in(x.row_block(k * tile, tile)), out(tile, tile)}, {1.5f, -0.2f}}).outputs[0];
            std::vector<std::uint64_t> branches;
            for (std::uint32_t i = 0; i < width; ++i) {
                scope branch(o);
                const tensor y =
                    o.submit({func::matmul, {in(src), in(w.row_block(i * tile, tile)), out(tile, tile)}}).outputs[0];
                // z is manual_dep: the tensor map does not see these writes, so
                // the reduce below declares its dependencies on them explicitly.
                branches.push_back(
                    o.submit({func::scale_bias, {in(y), out_existing(z.row_block(i * tile, tile))}, {0.5f, 0.0f}}).id);
            }
            const tensor r =
                o.submit(task_spec(func::reduce_sum, {in(z), out(tile, tile)}, {float(width)}, 1, branches).dump({1}))
                    .outputs[0];
            o.submit({func::scale_bias, {in(r), out_existing(x.row_block((k + 1) * tile, tile))}, {1.0f / width, 0.0f}});
        }
    }

    check_result check() const override {
        const tensor x = tensor::whole(*x_), w = tensor::whole(*w_);
        detail::dmat v = detail::read(x.row_block(0, tile));
        check_result result{true, 0.0, {}};
        for (std::uint32_t k = 0; k < rounds; ++k) {
            const detail::dmat src = detail::scale_bias(v, 1.5, -0.2);
            detail::dmat sum(tile, tile);
            for (std::uint32_t i = 0; i < width; ++i) {
                const detail::dmat z = detail::scale_bias(detail::matmul(src, detail::read(w.row_block(i * tile, tile))), 0.5, 0.0);
                for (std::size_t e = 0; e < sum.v.size(); ++e) sum.v[e] += z.v[e];
            }
            v = detail::scale_bias(sum, 1.0 / width, 0.0);
            detail::merge(result, detail::compare(x.row_block((k + 1) * tile, tile), v, "x" + std::to_string(k + 1)));
        }
        return result;
    }

private:
    std::mt19937_64 rng_;
    buffer *x_ = nullptr, *w_ = nullptr, *z_ = nullptr;
};

class spmd_workload final : public workload {
public:
    static constexpr std::uint32_t iterations = 6, n = 64, blocks = 4;
    explicit spmd_workload(std::uint64_t seed) : rng_(seed) {}

    void prepare(chip& c) override {
        x_ = &c.alloc_gm((iterations + 1) * n, n);
        w_ = &c.alloc_gm(n, n);
        detail::fill(*x_, rng_, 1.0f);
        detail::fill(*w_, rng_, 0.25f);
    }

    void orchestrate(orchestrator_api& o) override {
        const tensor x = tensor::whole(*x_), w = tensor::whole(*w_);
        for (std::uint32_t k = 0; k < iterations; ++k) {
            scope iteration(o);
            const tensor a =
                o.submit({func::scale_bias, {in(x.row_block(k * n, n)), out(n, n)}, {0.9f, 0.05f}, blocks}).outputs[0];
            scope inner(o);
            const tensor b = o.submit({func::matmul, {in(a), in(w), out(n, n)}, {}, blocks}).outputs[0];
            o.submit(task_spec(func::softmax, {in(b), out_existing(x.row_block((k + 1) * n, n))}, {4.0f, 0.0f}, blocks)
                         .dump({1}));
        }
    }

    check_result check() const override {
        const tensor x = tensor::whole(*x_);
        const detail::dmat w = detail::read(tensor::whole(*w_));
        detail::dmat v = detail::read(x.row_block(0, n));
        check_result result{true, 0.0, {}};
        for (std::uint32_t k = 0; k < iterations; ++k) {
            v = detail::softmax(detail::matmul(detail::scale_bias(v, 0.9, 0.05), w), 4.0, n);
            detail::merge(result, detail::compare(x.row_block((k + 1) * n, n), v, "x" + std::to_string(k + 1)));
        }
        return result;
    }

private:
    std::mt19937_64 rng_;
    buffer *x_ = nullptr, *w_ = nullptr;
};

// Decode attention, one query token per sequence and 16 query heads sharing
// one KV head: for sequence b with n = seq_lens[b] tokens in nb = ceil(n/16)
// KV blocks, QK_j = Q_b K_j^T for each block j (physical block
// block_table[b][j]), SF = softmax over the first n scores, PV_j accumulates
// P_j V_j into O_b in block order.
class paged_attention_workload final : public workload {
public:
    static constexpr std::uint32_t batch = 8, heads = 16, head_dim = 16, block = 16, max_blocks = 8;
    static constexpr std::uint32_t phys_blocks = batch * max_blocks;
    explicit paged_attention_workload(std::uint64_t seed) : rng_(seed) {}

    void prepare(chip& c) override {
        q_ = &c.alloc_gm(batch * heads, head_dim);
        kt_ = &c.alloc_gm(phys_blocks * head_dim, block);  // block p: K^T, [head_dim, block]
        v_ = &c.alloc_gm(phys_blocks * block, head_dim);   // block p: [block, head_dim]
        s_ = &c.alloc_gm(batch * heads, max_blocks * block);
        p_ = &c.alloc_gm(batch * heads, max_blocks * block);
        o_ = &c.alloc_gm(batch * heads, head_dim);
        detail::fill(*q_, rng_, 1.0f);
        detail::fill(*kt_, rng_, 1.0f);
        detail::fill(*v_, rng_, 1.0f);
        // The tensors that route the graph: a shuffled block table, and
        // sequence lengths that include a full and a one-block sequence.
        std::vector<std::int32_t> perm(phys_blocks);
        for (std::uint32_t i = 0; i < phys_blocks; ++i) perm[i] = static_cast<std::int32_t>(i);
        std::shuffle(perm.begin(), perm.end(), rng_);
        block_table_.assign(perm.begin(), perm.end());
        seq_lens_.resize(batch);
        std::uniform_int_distribution<std::int32_t> len(1, max_blocks * block);
        for (auto& l : seq_lens_) l = len(rng_);
        seq_lens_[0] = max_blocks * block;
        seq_lens_[1] = 1 + static_cast<std::int32_t>(rng_() % block);
    }

    void orchestrate(orchestrator_api& o) override {
        const tensor q = tensor::whole(*q_), kt = tensor::whole(*kt_), v = tensor::whole(*v_);
        const tensor s = tensor::whole(*s_), p = tensor::whole(*p_), out_ = tensor::whole(*o_);
        const float scale = 1.0f / std::sqrt(float(head_dim));
        for (std::uint32_t b = 0; b < batch; ++b) {
            const auto n = static_cast<std::uint32_t>(seq_lens_[b]);
            const std::uint32_t nb = (n + block - 1) / block;
            const tensor qb = q.row_block(b * heads, heads), ob = out_.row_block(b * heads, heads);
            scope sequence(o);
            {
                scope qk(o);
                for (std::uint32_t j = 0; j < nb; ++j)
                    o.submit({func::qk, {in(qb), in(kt.row_block(phys(b, j) * head_dim, head_dim)),
                                         out_existing(s.slice(b * heads, j * block, heads, block))}});
            }
            o.submit({func::sf, {in(s.slice(b * heads, 0, heads, nb * block)), out_existing(p.slice(b * heads, 0, heads, nb * block))},
                      {scale, float(n)}});
            scope pv(o);
            for (std::uint32_t j = 0; j < nb; ++j)
                o.submit(task_spec(func::pv, {in(p.slice(b * heads, j * block, heads, block)),
                                              in(v.row_block(phys(b, j) * block, block)), inout(ob)})
                             .dump({2}));  // the attention output, before and after each block
        }
    }

    check_result check() const override {
        const tensor q = tensor::whole(*q_), kt = tensor::whole(*kt_), v = tensor::whole(*v_), o = tensor::whole(*o_);
        check_result result{true, 0.0, {}};
        for (std::uint32_t b = 0; b < batch; ++b) {
            const auto n = static_cast<std::uint32_t>(seq_lens_[b]);
            const detail::dmat qb = detail::read(q.row_block(b * heads, heads));
            detail::dmat scores(heads, n), values(n, head_dim);
            for (std::uint32_t t = 0; t < n; ++t) {
                const detail::dmat k = detail::read(kt.row_block(phys(b, t / block) * head_dim, head_dim));
                const detail::dmat vb = detail::read(v.row_block(phys(b, t / block) * block, block));
                for (std::uint32_t h = 0; h < heads; ++h) {
                    double acc = 0.0;
                    for (std::uint32_t d = 0; d < head_dim; ++d) acc += qb.at(h, d) * k.at(d, t % block);
                    scores.at(h, t) = acc;
                }
                for (std::uint32_t d = 0; d < head_dim; ++d) values.at(t, d) = vb.at(t % block, d);
            }
            const detail::dmat want = detail::matmul(detail::softmax(scores, 1.0 / std::sqrt(double(head_dim)), n), values);
            detail::merge(result, detail::compare(o.row_block(b * heads, heads), want, "O[seq " + std::to_string(b) + "]"));
        }
        return result;
    }

private:
    std::uint32_t phys(std::uint32_t b, std::uint32_t j) const {
        return static_cast<std::uint32_t>(block_table_[b * max_blocks + j]);
    }

    std::mt19937_64 rng_;
    buffer *q_ = nullptr, *kt_ = nullptr, *v_ = nullptr, *s_ = nullptr, *p_ = nullptr, *o_ = nullptr;
    std::vector<std::int32_t> block_table_;
    std::vector<std::int32_t> seq_lens_;
};


// Throughput: N tasks in steps of `lanes` + 1 over `streams` independent
// streams, one step of each stream per round (a scope), so a round offers
// the cores `streams` steps at once and they need not sleep between tasks.
// A step of stream g: lane i computes z_gi = 0.2 s_g + b_i (reads the state
// s_g, written INOUT into its block of z: the map replaces the lane's
// previous write, so each lane is a chain across rounds and the map stays
// streams x (lanes + 1) entries long however long the run), then reduce_sum
// folds the lanes back into s_g (fan-in of `lanes`, INOUT on s_g: the chain
// of the state). The last step is partial when N is not a multiple of
// lanes + 1: its lanes, then a reduce over them if at least two tasks are
// left. The contraction (4 x 0.2 < 1) keeps the values bounded, so the float
// result stays within the check's tolerance.
class stream_workload final : public workload {
public:
    static constexpr std::uint32_t streams = 4, lanes = 4, tile = 4;
    stream_workload(std::uint64_t seed, std::uint64_t tasks) : rng_(seed), tasks_(tasks) {}

    void prepare(chip& c) override {
        s_ = &c.alloc_gm(streams * tile, tile);
        z_ = &c.alloc_gm(streams * lanes * tile, tile);
        detail::fill(*s_, rng_, 1.0f);
        detail::fill(*z_, rng_, 1.0f);  // blocks a short run never writes keep these values
        s_init_ = detail::read(tensor::whole(*s_));
        z_init_ = detail::read(tensor::whole(*z_));
    }

    void orchestrate(orchestrator_api& o) override {
        const tensor s = tensor::whole(*s_), z = tensor::whole(*z_);
        for (std::uint64_t left = tasks_; left > 0;) {
            scope round(o);
            for (std::uint32_t g = 0; g < streams && left > 0; ++g) {
                const auto [n, reduce] = step_shape(left);
                const tensor sg = s.row_block(g * tile, tile);
                for (std::uint32_t i = 0; i < n; ++i)
                    o.submit({func::scale_bias, {in(sg), inout(z.row_block((g * lanes + i) * tile, tile))}, {0.2f, bias(i)}});
                if (reduce)
                    o.submit(task_spec(func::reduce_sum, {in(z.row_block(g * lanes * tile, n * tile)), inout(sg)}, {float(n)})
                                 .dump({1}));
                left -= n + (reduce ? 1 : 0);
            }
        }
    }

    check_result check() const override {
        detail::dmat sv = s_init_, zv = z_init_;  // the same steps, in double precision
        for (std::uint64_t left = tasks_; left > 0;)
            for (std::uint32_t g = 0; g < streams && left > 0; ++g) {
                const auto [n, reduce] = step_shape(left);
                for (std::uint32_t i = 0; i < n; ++i)
                    for (std::uint32_t r = 0; r < tile; ++r)
                        for (std::uint32_t c = 0; c < tile; ++c)
                            zv.at((g * lanes + i) * tile + r, c) = 0.2 * sv.at(g * tile + r, c) + double(bias(i));
                if (reduce)
                    for (std::uint32_t r = 0; r < tile; ++r)
                        for (std::uint32_t c = 0; c < tile; ++c) {
                            double acc = 0.0;
                            for (std::uint32_t i = 0; i < n; ++i) acc += zv.at((g * lanes + i) * tile + r, c);
                            sv.at(g * tile + r, c) = acc;
                        }
                left -= n + (reduce ? 1 : 0);
            }
        check_result result{true, 0.0, {}};
        detail::merge(result, detail::compare(tensor::whole(*s_), sv, "s"));
        detail::merge(result, detail::compare(tensor::whole(*z_), zv, "z"));
        return result;
    }

private:
    struct shape {
        std::uint32_t lanes_used;
        bool reduce;
    };
    // A full step, or the tail: a lone lane when one task is left, else
    // lanes and a reduce.
    static shape step_shape(std::uint64_t left) {
        if (left >= lanes + 1) return {lanes, true};
        if (left == 1) return {1, false};
        return {static_cast<std::uint32_t>(left - 1), true};
    }
    static float bias(std::uint32_t lane) { return 0.05f * float(lane + 1); }

    std::mt19937_64 rng_;
    std::uint64_t tasks_;
    buffer *s_ = nullptr, *z_ = nullptr;
    detail::dmat s_init_{streams * tile, tile}, z_init_{streams * lanes * tile, tile};
};

// `tasks`: the stream workload's size (the others have a fixed shape).
inline std::unique_ptr<workload> make_workload(std::string_view name, std::uint64_t seed,
                                               std::uint64_t tasks = stream_default_tasks) {
    if (name == "chain") return std::make_unique<chain_workload>(seed);
    if (name == "fanout") return std::make_unique<fanout_workload>(seed);
    if (name == "spmd") return std::make_unique<spmd_workload>(seed);
    if (name == "paged_attention") return std::make_unique<paged_attention_workload>(seed);
    if (name == "stream") return std::make_unique<stream_workload>(seed, tasks);
    return nullptr;
}

}  // namespace sim
