// The reference's level-1 dump (tests/conformance/l4_deps/args_dump/)
// replayed through the whole capture path: each task's argument list is
// rebuilt with the marks that select exactly the recorded arguments, each
// tensor's physical buffer (strided views included) holds the recorded bytes
// when its stage is captured, the capture calls happen in the reference's
// collection order, and what our host writes must equal the reference's
// args_dump.json and args.bin byte for byte.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "reference_dump.hpp"

namespace {

std::uint64_t physical_elements(const dfx::args_dump_record& r) {
    std::uint64_t last = r.start_offset;
    for (int d = 0; d < r.ndims; ++d) {
        if (r.shape[d] == 0) return 0;
        last += std::uint64_t{r.shape[d] - 1} * r.strides[d];
    }
    return last + 1;
}

// The inverse of the capture's gather, written plainly: logical element k
// (row-major over the shape) goes to start_offset + sum(coord[d] * strides[d]).
void scatter(const dfx::args_dump_record& r, const char* logical, std::vector<std::byte>& buffer) {
    const std::uint32_t elem = dfx::dtype_size(r.dtype);
    std::uint64_t numel = 1;
    for (int d = 0; d < r.ndims; ++d) numel *= r.shape[d];
    for (std::uint64_t k = 0; k < numel; ++k) {
        std::uint64_t rest = k, physical = r.start_offset;
        for (int d = r.ndims - 1; d >= 0; --d) {
            physical += (rest % r.shape[d]) * r.strides[d];
            rest /= r.shape[d];
        }
        std::memcpy(buffer.data() + physical * elem, logical + k * elem, elem);
    }
}

// One task as the runtime would have built it.
struct task_model {
    std::array<std::int32_t, 3> kernels{-1, -1, -1};
    int tensor_count = 0;
    std::vector<dfx::tensor_view> tensors;
    std::vector<dfx::dump_role> roles;
    std::vector<std::vector<std::byte>> buffers;
    std::vector<const dfx::args_dump_record*> tensor_records;  // the recorded slots (nullptr: an unmarked filler)
    std::array<float, 16> floats{};
    std::array<std::int32_t, 16> ints{};
    std::vector<const dfx::args_dump_record*> scalar_records;
    dfx::task_args<> args;

    void build() {
        for (int i = 0; i < tensor_count; ++i) {
            if (tensor_records[i] == nullptr) {  // an argument the task has but did not mark
                buffers[i].resize(4);
                dfx::tensor_view v;
                v.addr = reinterpret_cast<std::uintptr_t>(buffers[i].data());
                v.ndims = 1;
                v.shape[0] = 1;
                v.strides[0] = 1;
                tensors[i] = v;
                roles[i] = dfx::dump_role::input;
            }
            switch (roles[i]) {
                case dfx::dump_role::input: args.add_input(tensors[i]); break;
                case dfx::dump_role::output: args.add_output(tensors[i]); break;
                case dfx::dump_role::inout: args.add_inout(tensors[i]); break;
            }
        }
        for (std::size_t j = 0; j < scalar_records.size(); ++j) {
            const auto* r = scalar_records[j];
            if (r && r->dtype == static_cast<std::uint8_t>(dfx::dtype::float32)) {
                std::memcpy(&floats[j], &r->scalar_value, 4);
                args.add_scalar(floats[j]);
            } else {
                ints[j] = r ? static_cast<std::int32_t>(static_cast<std::uint32_t>(r->scalar_value)) : 0;
                args.add_scalar(ints[j]);
            }
        }
        // Level 1 marks: exactly the recorded arguments, each by its variable.
        for (int i = 0; i < tensor_count; ++i)
            if (tensor_records[i]) REQUIRE(args.dump(tensors[i]));
        for (std::size_t j = 0; j < scalar_records.size(); ++j)
            if (scalar_records[j]) {
                if (scalar_records[j]->dtype == static_cast<std::uint8_t>(dfx::dtype::float32))
                    REQUIRE(args.dump(floats[j]));
                else
                    REQUIRE(args.dump(ints[j]));
            }
    }
};

struct capture_call {
    std::uint64_t task_id;
    dfx::dump_stage stage;
    std::vector<const dfx::args_dump_entry*> payloads;  // scattered into the buffers just before the call
};

}  // namespace

TEST_CASE("the reference's dump replayed through view, transport and host: args_dump.json and args.bin byte for byte") {
    const auto ref = dump_test::load_reference_dump();
    REQUIRE(ref.level == 1);
    const auto collected = dump_test::collection_order(ref.entries);

    // Tasks: slots from the records. Scalars follow the tensors, so the
    // smallest scalar index is the tensor count.
    std::map<std::uint64_t, std::unique_ptr<task_model>> tasks;
    std::map<std::uint64_t, std::pair<int, int>> extent;  // task -> (max tensor index, min scalar index)
    for (const auto& e : collected) {
        auto& x = extent.try_emplace(e.record.task_id, -1, 1 << 30).first->second;
        if (e.record.kind == dfx::dump_arg_kind::tensor)
            x.first = std::max(x.first, static_cast<int>(e.record.arg_index));
        else
            x.second = std::min(x.second, static_cast<int>(e.record.arg_index));
    }
    for (const auto& [id, x] : extent) {
        auto t = std::make_unique<task_model>();
        t->tensor_count = x.second < (1 << 30) ? x.second : x.first + 1;
        REQUIRE(t->tensor_count > x.first);
        t->tensors.resize(static_cast<std::size_t>(t->tensor_count));
        t->roles.resize(static_cast<std::size_t>(t->tensor_count));
        t->buffers.resize(static_cast<std::size_t>(t->tensor_count));
        t->tensor_records.assign(static_cast<std::size_t>(t->tensor_count), nullptr);
        tasks[id] = std::move(t);
    }
    for (const auto& e : collected) {
        task_model& t = *tasks[e.record.task_id];
        const auto& r = e.record;
        for (int k = 0; k < r.func_count; ++k) t.kernels[static_cast<std::size_t>(k)] = r.func_ids[k];
        if (r.kind == dfx::dump_arg_kind::scalar) {
            const auto j = r.arg_index - static_cast<std::uint32_t>(t.tensor_count);
            if (t.scalar_records.size() <= j) t.scalar_records.resize(j + 1, nullptr);
            t.scalar_records[j] = &r;
            continue;
        }
        const auto i = r.arg_index;
        if (t.tensor_records[i]) continue;  // the same slot at another stage, or another SPMD block
        t.tensor_records[i] = &r;
        t.roles[i] = r.role;
        t.buffers[i].assign(physical_elements(r) * dfx::dtype_size(r.dtype), std::byte{0xEE});
        dfx::tensor_view v;
        v.addr = reinterpret_cast<std::uintptr_t>(t.buffers[i].data());
        v.dtype = r.dtype;
        v.ndims = r.ndims;
        for (int d = 0; d < r.ndims; ++d) {
            v.shape[d] = r.shape[d];
            v.strides[d] = r.strides[d];
        }
        v.start_offset = r.start_offset;
        t.tensors[i] = v;
    }
    for (auto& [id, t] : tasks) t->build();

    // Capture calls in collection order: a call emits each argument once, in
    // slot order, so a repeated or lower arg_index starts the next call (the
    // 22 blocks of task 0x...0a). Tasks whose only before-dispatch argument
    // is a scalar get a call of their own.
    std::vector<capture_call> calls;
    std::set<std::uint64_t> has_before_call;
    for (const auto& e : collected) {
        if (e.bin_size == 0) continue;
        const auto& r = e.record;
        if (calls.empty() || calls.back().task_id != r.task_id || calls.back().stage != r.stage ||
            calls.back().payloads.back()->record.arg_index >= r.arg_index)
            calls.push_back({r.task_id, r.stage, {}});
        calls.back().payloads.push_back(&e);
        if (r.stage == dfx::dump_stage::before_dispatch) has_before_call.insert(r.task_id);
    }
    for (const auto& e : collected)
        if (e.record.kind == dfx::dump_arg_kind::scalar && !has_before_call.count(e.record.task_id)) {
            calls.insert(calls.begin(), {e.record.task_id, dfx::dump_stage::before_dispatch, {}});
            has_before_call.insert(e.record.task_id);
        }

    dfx::args_dump_layout layout;
    layout.records = {4, 16};
    layout.payload = {4, 16};
    const auto r = dump_test::run<1>("conformance_replay", layout, [&](auto& view) {
        for (const auto& call : calls) {
            task_model& t = *tasks[call.task_id];
            for (const auto* e : call.payloads)
                scatter(e->record, ref.bin.data() + e->bin_offset, t.buffers[e->record.arg_index]);
            if (call.stage == dfx::dump_stage::before_dispatch)
                view.before_dispatch(call.task_id, t.kernels, t.args);
            else
                view.after_completion(call.task_id, t.kernels, t.args);
        }
    });
    CHECK(r.summary.args == ref.entries.size());
    CHECK(r.json == ref.json);
    CHECK(r.bin.size() == ref.bin.size());
    CHECK(r.bin == ref.bin);
}
