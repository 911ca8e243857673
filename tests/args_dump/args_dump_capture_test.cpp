// The args dump end to end: marks on task_args, capture through the
// scheduler view, metadata and payload chunks through the transport,
// args_dump.json and args.bin. Goldens are written by hand from the spec.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dump_rig.hpp"

using dump_test::bytes_of;
using dump_test::view_of;
using dfx::dtype;

namespace {

constexpr std::array<std::int32_t, 3> aiv0_kernel0{-1, 0, -1};

// The spec's A3.3 setting: a and b inputs (b a strided view into a [2,4]
// buffer), c output, scalars alpha and n; the kernel writes c.
struct a33 {
    float a_data[6] = {1, 2, 3, 4, 5, 6};
    float b_buffer[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    float c_data[6] = {};
    dfx::tensor_view a = view_of(a_data, dtype::float32, {2, 3}, {3, 1});
    dfx::tensor_view b = view_of(b_buffer, dtype::float32, {2, 3}, {4, 1}, 1);
    dfx::tensor_view c = view_of(c_data, dtype::float32, {2, 3}, {3, 1});
    float alpha = 0.5f;
    std::int32_t n = -3;
    dfx::task_args<> args;

    a33() {
        args.add_input(a);
        args.add_input(b);
        args.add_output(c);
        args.add_scalar(alpha);
        args.add_scalar(n);
    }

    template <class View>
    void run(View& view) {
        view.before_dispatch(0, aiv0_kernel0, args);
        for (int i = 0; i < 6; ++i) c_data[i] = 100.0f + static_cast<float>(i);  // the kernel
        view.after_completion(0, aiv0_kernel0, args);
    }
};

}  // namespace

TEST_CASE("the spec's A3.3 example at level 2, written by hand: args_dump.json and the 72-byte args.bin") {
    a33 task;
    const auto r = dump_test::run<2>("a33", dump_test::small_layout(), [&](auto& view) { task.run(view); });
    CHECK(r.json == R"({
  "run_dir": "args_dump",
  "bin_format": {
    "type": "logical_contiguous",
    "byte_order": "little_endian"
  },
  "dump_args_level": 2,
  "total_args": 5,
  "before_dispatch": 4,
  "after_completion": 1,
  "input_args": 4,
  "output_args": 1,
  "inout_args": 0,
  "truncated_args": 0,
  "dropped_records": 0,
  "dropped_overwrite": 0,
  "bin_file": "args.bin",
  "args": [
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 0, "role": "input", "stage": "before_dispatch", "kind": "tensor", "dtype": "FLOAT32", "is_contiguous": true, "shape": [2, 3], "strides": [3, 1], "start_offset": 0, "numel": 6, "bin_offset": 0, "bin_size": 24, "truncated": false, "overwritten": false},
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 1, "role": "input", "stage": "before_dispatch", "kind": "tensor", "dtype": "FLOAT32", "is_contiguous": false, "shape": [2, 3], "strides": [4, 1], "start_offset": 1, "numel": 6, "bin_offset": 24, "bin_size": 24, "truncated": false, "overwritten": false},
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 3, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": "FLOAT32", "value": 0.5, "is_contiguous": true, "shape": [], "strides": [], "start_offset": 0, "numel": 1, "bin_offset": 0, "bin_size": 0, "truncated": false, "overwritten": false},
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 4, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": "INT32", "value": -3, "is_contiguous": true, "shape": [], "strides": [], "start_offset": 0, "numel": 1, "bin_offset": 0, "bin_size": 0, "truncated": false, "overwritten": false},
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 2, "role": "output", "stage": "after_completion", "kind": "tensor", "dtype": "FLOAT32", "is_contiguous": true, "shape": [2, 3], "strides": [3, 1], "start_offset": 0, "numel": 6, "bin_offset": 48, "bin_size": 24, "truncated": false, "overwritten": false}
  ]
}
)");
    // a row-major; b's buffer elements 1, 2, 3, 5, 6, 7; c after the kernel ran.
    CHECK(r.bin == bytes_of<float>({1, 2, 3, 4, 5, 6, 11, 12, 13, 15, 16, 17, 100, 101, 102, 103, 104, 105}));
    CHECK(r.summary.args == 5);
    CHECK(r.summary.bin_bytes == 72);
    for (const auto& c : r.report) CHECK(c.balanced());
}

TEST_CASE("level 1 with args.dump(b, alpha): just arg 1 (before_dispatch) and arg 3 (spec A3.3)") {
    a33 task;
    REQUIRE(task.args.dump(task.b, task.alpha));
    const auto r = dump_test::run<1>("a33_marked", dump_test::small_layout(), [&](auto& view) { task.run(view); });
    CHECK(r.json == R"({
  "run_dir": "args_dump",
  "bin_format": {
    "type": "logical_contiguous",
    "byte_order": "little_endian"
  },
  "dump_args_level": 1,
  "total_args": 2,
  "before_dispatch": 2,
  "after_completion": 0,
  "input_args": 2,
  "output_args": 0,
  "inout_args": 0,
  "truncated_args": 0,
  "dropped_records": 0,
  "dropped_overwrite": 0,
  "bin_file": "args.bin",
  "args": [
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 1, "role": "input", "stage": "before_dispatch", "kind": "tensor", "dtype": "FLOAT32", "is_contiguous": false, "shape": [2, 3], "strides": [4, 1], "start_offset": 1, "numel": 6, "bin_offset": 0, "bin_size": 24, "truncated": false, "overwritten": false},
    {"task_id": "0x0000000000000000", "func_id": [0], "arg_index": 3, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": "FLOAT32", "value": 0.5, "is_contiguous": true, "shape": [], "strides": [], "start_offset": 0, "numel": 1, "bin_offset": 0, "bin_size": 0, "truncated": false, "overwritten": false}
  ]
}
)");
    CHECK(r.bin == bytes_of<float>({11, 12, 13, 15, 16, 17}));
}

TEST_CASE("level 1 with no marks records nothing: no args_dump.json, no args.bin, no directory") {
    a33 task;
    const auto r = dump_test::run<1>("unmarked", dump_test::small_layout(), [&](auto& view) { task.run(view); });
    CHECK_FALSE(r.dir_exists);
    CHECK(r.summary.args == 0);
}

TEST_CASE("level 2 ignores the marks; level 1 skips unmarked tasks entirely") {
    a33 marked, unmarked;
    REQUIRE(marked.args.dump(marked.c));
    const auto body = [&](auto& view) {
        marked.run(view);
        view.before_dispatch(1, aiv0_kernel0, unmarked.args);
        view.after_completion(1, aiv0_kernel0, unmarked.args);
    };
    const auto level2 = dump_test::run<2>("marks_ignored", dump_test::small_layout(), body);
    CHECK(level2.summary.args == 10);
    const auto level1 = dump_test::run<1>("marks_only", dump_test::small_layout(), body);
    CHECK(level1.summary.args == 1);
    CHECK(level1.json.find("\"arg_index\": 2, \"role\": \"output\", \"stage\": \"after_completion\"") != std::string::npos);
    CHECK(level1.bin == bytes_of<float>({100, 101, 102, 103, 104, 105}));
}

TEST_CASE("an inout is captured at both stages; SPMD blocks each capture before dispatch; ambiguity is reported") {
    std::int16_t state[4] = {1, 2, 3, 4};
    const dfx::tensor_view s = view_of(state, dtype::int16, {4}, {1});
    dfx::task_args<> args;
    args.add_inout(s);
    args.add_input(s);  // the same view twice: dump(s) marks the first and flags it
    REQUIRE(args.dump(s));
    const auto r = dump_test::run<1>("inout", dump_test::small_layout(), [&](auto& view) {
        view.before_dispatch(0x100000007ULL, {3, 4, 5}, args);  // block 0
        view.before_dispatch(0x100000007ULL, {3, 4, 5}, args);  // block 1
        for (auto& v : state) v = static_cast<std::int16_t>(v * 10);
        view.after_completion(0x100000007ULL, {3, 4, 5}, args);
    });
    const std::string common = R"("task_id": "0x0000000100000007", "func_id": [3, 4, 5], "arg_index": 0, "role": "inout", )";
    const std::string tail = R"("kind": "tensor", "dtype": "INT16", "is_contiguous": true, "shape": [4], "strides": [1], "start_offset": 0, "numel": 4, "arg_index_ambiguous": true, )";
    CHECK(r.json.find("{" + common + R"("stage": "before_dispatch", )" + tail +
                      R"("bin_offset": 0, "bin_size": 8, "truncated": false, "overwritten": false},)") != std::string::npos);
    CHECK(r.json.find("{" + common + R"("stage": "before_dispatch", )" + tail +
                      R"("bin_offset": 8, "bin_size": 8, "truncated": false, "overwritten": false},)") != std::string::npos);
    CHECK(r.json.find("{" + common + R"("stage": "after_completion", )" + tail +
                      R"("bin_offset": 16, "bin_size": 8, "truncated": false, "overwritten": false})") != std::string::npos);
    CHECK(r.json.find("\"inout_args\": 3,") != std::string::npos);
    CHECK(r.bin == bytes_of<std::int16_t>({1, 2, 3, 4, 1, 2, 3, 4, 10, 20, 30, 40}));
}

TEST_CASE("strided views are gathered row-major (logical_contiguous)") {
    // A 2x3 matrix [[0,1,2],[3,4,5]] read transposed: shape [3,2], strides [1,3]
    // (the last dimension is not dense: one element at a time).
    std::int32_t m[6] = {0, 1, 2, 3, 4, 5};
    // A [2,2,2] box out of a [3,4,5] buffer at (1,1,2): dense rows of 2.
    std::uint8_t cube[60];
    for (int i = 0; i < 60; ++i) cube[i] = static_cast<std::uint8_t>(i);
    // Every other element of a row, from the second.
    std::uint16_t row[10] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90};

    dfx::task_args<> args;
    const dfx::tensor_view t = view_of(m, dtype::int32, {3, 2}, {1, 3});
    const dfx::tensor_view box = view_of(cube, dtype::uint8, {2, 2, 2}, {20, 5, 1}, 1 * 20 + 1 * 5 + 2);
    const dfx::tensor_view odd = view_of(row, dtype::uint16, {4}, {2}, 1);
    args.add_input(t);
    args.add_input(box);
    args.add_input(odd);
    const auto r = dump_test::run<2>("strided", dump_test::small_layout(),
                                     [&](auto& view) { view.before_dispatch(9, {1, -1, -1}, args); });
    const std::string expected = bytes_of<std::int32_t>({0, 3, 1, 4, 2, 5}) +
                                 bytes_of<std::uint8_t>({27, 28, 32, 33, 47, 48, 52, 53}) +
                                 bytes_of<std::uint16_t>({10, 30, 50, 70});
    CHECK(r.bin == expected);
    CHECK(r.json.find(R"("dtype": "INT32", "is_contiguous": false, "shape": [3, 2], "strides": [1, 3], "start_offset": 0, "numel": 6, "bin_offset": 0, "bin_size": 24,)") != std::string::npos);
    CHECK(r.json.find(R"("dtype": "UINT8", "is_contiguous": false, "shape": [2, 2, 2], "strides": [20, 5, 1], "start_offset": 27, "numel": 8, "bin_offset": 24, "bin_size": 8,)") != std::string::npos);
    CHECK(r.json.find(R"("dtype": "UINT16", "is_contiguous": false, "shape": [4], "strides": [2], "start_offset": 1, "numel": 4, "bin_offset": 32, "bin_size": 8,)") != std::string::npos);
}

TEST_CASE("a batch that just fits one chunk and one a byte past it: the same bytes and offsets either way") {
    // 4,000 contiguous bytes, then every other byte of a row: 32 of them make
    // a 4,032-byte batch (one chunk, claimed whole), 33 a 4,033-byte one (two
    // chunks, cut inside the strided gather).
    static std::uint8_t block[4000];
    for (int i = 0; i < 4000; ++i) block[i] = static_cast<std::uint8_t>(i * 7);
    std::uint8_t row[66];
    for (int i = 0; i < 66; ++i) row[i] = static_cast<std::uint8_t>(200 + i);
    const dfx::tensor_view whole = view_of(block, dtype::uint8, {4000}, {1});
    const dfx::tensor_view fits = view_of(row, dtype::uint8, {32}, {2});
    const dfx::tensor_view past = view_of(row, dtype::uint8, {33}, {2});
    dfx::task_args<> one, two;
    one.add_input(whole);
    one.add_input(fits);
    two.add_input(whole);
    two.add_input(past);
    const auto r = dump_test::run<2>("chunk_limit", dump_test::small_layout(), [&](auto& view) {
        view.before_dispatch(1, {1, -1, -1}, one);
        view.before_dispatch(2, {1, -1, -1}, two);
    });
    std::string expected(reinterpret_cast<const char*>(block), 4000);
    for (int i = 0; i < 32; ++i) expected += static_cast<char>(row[2 * i]);
    expected.append(reinterpret_cast<const char*>(block), 4000);
    for (int i = 0; i < 33; ++i) expected += static_cast<char>(row[2 * i]);
    CHECK(r.bin.size() == 4032 + 4033);
    CHECK(r.bin == expected);
    CHECK(r.json.find(R"("numel": 4000, "bin_offset": 0, "bin_size": 4000,)") != std::string::npos);
    CHECK(r.json.find(R"("numel": 32, "bin_offset": 4000, "bin_size": 32,)") != std::string::npos);
    CHECK(r.json.find(R"("numel": 4000, "bin_offset": 4032, "bin_size": 4000,)") != std::string::npos);
    CHECK(r.json.find(R"("numel": 33, "bin_offset": 8032, "bin_size": 33,)") != std::string::npos);
}

TEST_CASE("scalars: value rendering per dtype, arg_index = tensor_count + j, role input") {
    float x[2] = {1, 2};
    const dfx::tensor_view t = view_of(x, dtype::float32, {2}, {1});
    std::uint32_t big = 4000000000u;
    std::int64_t neg = -5;
    bool flag = true;
    std::int8_t small = -1;
    float third = 1.0f / 3.0f;
    dfx::task_args<> args;
    args.add_output(t);
    args.add_scalar(big);
    args.add_scalar(neg);
    args.add_scalar(flag);
    args.add_scalar(small);
    args.add_scalar(third);
    const auto r = dump_test::run<2>("scalars", dump_test::small_layout(),
                                     [&](auto& view) { view.before_dispatch(2, {7, -1, -1}, args); });
    const auto scalar = [](int index, const char* dtype_name, const char* value) {
        return std::string(R"("arg_index": )") + std::to_string(index) +
               R"(, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": ")" + dtype_name +
               R"(", "value": )" + value + R"(, "is_contiguous": true, "shape": [], "strides": [], "start_offset": 0, "numel": 1, "bin_offset": 0, "bin_size": 0,)";
    };
    CHECK(r.json.find(scalar(1, "UINT32", "4000000000")) != std::string::npos);
    CHECK(r.json.find(scalar(2, "INT64", "-5")) != std::string::npos);
    CHECK(r.json.find(scalar(3, "BOOL", "true")) != std::string::npos);
    CHECK(r.json.find(scalar(4, "INT8", "255")) != std::string::npos);  // zero-extended, as the reference prints it
    CHECK(r.json.find(scalar(5, "FLOAT32", "0.333333")) != std::string::npos);
    CHECK(r.summary.args == 5);  // the output is not captured before dispatch
    CHECK(r.bin.empty());        // scalars only: args.bin exists and is empty
    CHECK(r.bin_exists);
}

TEST_CASE("a rebound variable re-marked in the next task: each task dumps what it was given") {
    float first[3] = {1, 2, 3};
    float second[3] = {7, 8, 9};
    dfx::tensor_view x = view_of(first, dtype::float32, {3}, {1});
    float scale = 0.25f;
    dfx::task_args<> task1, task2, task3;
    task1.add_input(x);
    task1.add_scalar(scale);
    REQUIRE(task1.dump(x, scale));

    x = view_of(second, dtype::float32, {3}, {1});  // the same variables, rebound
    scale = 4.0f;
    task2.add_input(x);
    task2.add_scalar(scale);
    REQUIRE(task2.dump(x, scale));
    task3.add_input(x);  // added again but not re-marked: level 1 skips it
    task3.add_scalar(scale);

    const auto r = dump_test::run<1>("rebound", dump_test::small_layout(), [&](auto& view) {
        view.before_dispatch(1, aiv0_kernel0, task1);
        view.before_dispatch(2, aiv0_kernel0, task2);
        view.before_dispatch(3, aiv0_kernel0, task3);
    });
    CHECK(r.bin == bytes_of<float>({1, 2, 3, 7, 8, 9}));
    CHECK(r.json.find(R"("task_id": "0x0000000000000001", "func_id": [0], "arg_index": 1, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": "FLOAT32", "value": 0.25,)") != std::string::npos);
    CHECK(r.json.find(R"("task_id": "0x0000000000000002", "func_id": [0], "arg_index": 1, "role": "input", "stage": "before_dispatch", "kind": "scalar", "dtype": "FLOAT32", "value": 4.0,)") != std::string::npos);
    CHECK(r.json.find(R"("task_id": "0x0000000000000002", "func_id": [0], "arg_index": 0, "role": "input", "stage": "before_dispatch", "kind": "tensor", "dtype": "FLOAT32", "is_contiguous": true, "shape": [3], "strides": [1], "start_offset": 0, "numel": 3, "bin_offset": 12, "bin_size": 12,)") != std::string::npos);
    CHECK(r.json.find("0x0000000000000003") == std::string::npos);
    CHECK(r.summary.args == 4);
}

TEST_CASE("a tensor larger than the arena is truncated to half the arena and flagged; one that fits is whole") {
    dfx::args_dump_layout layout;
    layout.records = {2, 4};
    layout.payload = {2, 4};  // arena: 8 chunks
    constexpr std::uint64_t arena = 8 * dfx::args_payload_chunk_bytes;
    static std::uint32_t big[10000];
    static std::uint32_t exact[arena / 4];  // exactly the arena: not truncated (it streams through)
    for (std::uint32_t i = 0; i < 10000; ++i) big[i] = i * 3;
    for (std::uint32_t i = 0; i < arena / 4; ++i) exact[i] = ~i;
    dfx::task_args<> args;
    const dfx::tensor_view b = view_of(big, dtype::uint32, {100, 100}, {100, 1});
    const dfx::tensor_view e = view_of(exact, dtype::uint32, {static_cast<std::uint32_t>(arena / 4)}, {1});
    args.add_input(b);
    args.add_input(e);
    const auto r = dump_test::run<2>("truncated", layout, [&](auto& view) { view.before_dispatch(5, aiv0_kernel0, args); });
    CHECK(r.json.find(R"("shape": [100, 100], "strides": [100, 1], "start_offset": 0, "numel": 10000, "bin_offset": 0, "bin_size": 16128, "truncated": true,)") != std::string::npos);
    CHECK(r.json.find("\"bin_offset\": 16128, \"bin_size\": " + std::to_string(arena) + ", \"truncated\": false,") !=
          std::string::npos);
    CHECK(r.json.find("\"truncated_args\": 1,") != std::string::npos);
    REQUIRE(r.bin.size() == arena / 2 + arena);
    CHECK(std::memcmp(r.bin.data(), big, arena / 2) == 0);  // the first half-arena of the logical stream
    CHECK(std::memcmp(r.bin.data() + arena / 2, exact, arena) == 0);
    CHECK(r.summary.truncated == 1);
}

TEST_CASE("under the drop policy, what did not fit is counted and flagged, never silently missing") {
    dfx::args_dump_layout layout;
    layout.records = {1, 1};  // one 8 KiB buffer: 128 calls of one argument (64 bytes each)
    layout.payload = {1, 2};  // room for 2 chunks
    static std::uint8_t a[3000], b[6000];
    for (int i = 0; i < 3000; ++i) a[i] = static_cast<std::uint8_t>(i);
    for (int i = 0; i < 6000; ++i) b[i] = static_cast<std::uint8_t>(i * 7);
    const dfx::tensor_view ta = view_of(a, dtype::uint8, {3000}, {1});
    const dfx::tensor_view tb = view_of(b, dtype::uint8, {6000}, {1});
    std::int32_t n = 1, m = 2, k = 3;
    dfx::task_args<> ta_args, tb_args, scalar_args, three_scalars;
    ta_args.add_input(ta);
    tb_args.add_input(tb);
    scalar_args.add_scalar(n);
    three_scalars.add_scalar(n);
    three_scalars.add_scalar(m);
    three_scalars.add_scalar(k);
    const auto r = dump_test::run<2, dfx::drop>(
        "dropped", layout,
        [&](auto& view) {
            view.before_dispatch(1, aiv0_kernel0, ta_args);  // call 1, chunk 1
            view.before_dispatch(2, aiv0_kernel0, tb_args);  // call 2, chunks 2 and 3: chunk 3 is dropped
            for (std::uint64_t task = 3; task < 129; ++task)
                view.before_dispatch(task, aiv0_kernel0, scalar_args);  // calls 3..128: the buffer is full
            view.before_dispatch(500, aiv0_kernel0, three_scalars);    // call 129: dropped, 3 arguments lost
        },
        /*start_late=*/true);
    CHECK(r.summary.args == 128);
    CHECK(r.summary.dropped_records == 3);
    CHECK(r.summary.dropped_chunks == 1);
    CHECK(r.summary.lost_payloads == 1);
    CHECK(r.json.find("\"dropped_records\": 3,\n  \"dropped_overwrite\": 1,") != std::string::npos);
    CHECK(r.json.find(R"("task_id": "0x0000000000000002", "func_id": [0], "arg_index": 0, "role": "input", "stage": "before_dispatch", "kind": "tensor", "dtype": "UINT8", "is_contiguous": true, "shape": [6000], "strides": [1], "start_offset": 0, "numel": 6000, "bin_offset": 0, "bin_size": 0, "truncated": false, "overwritten": true})") != std::string::npos);
    CHECK(r.json.find(R"("numel": 3000, "bin_offset": 0, "bin_size": 3000, "truncated": false, "overwritten": false})") != std::string::npos);
    CHECK(r.json.find("0x0000000000000080") != std::string::npos);  // task 128, the last that fit
    CHECK(r.json.find("0x00000000000001f4") == std::string::npos);  // task 500 was dropped
    CHECK(std::memcmp(r.bin.data(), a, 3000) == 0);
    // The transport's own accounting shows both losses too: one call record
    // (with its 3 arguments) and one chunk.
    std::uint64_t dropped = 0, dropped_items = 0;
    for (const auto& c : r.report) {
        CHECK(c.balanced());
        dropped += c.dropped;
        dropped_items += c.dropped_items;
    }
    CHECK(dropped == 2);
    CHECK(dropped_items == 3);
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    dfx::write_args_dump_report(out, r.summary);
    dfx::write_accounting(out, "args dump", r.report);
    std::fclose(out);
    const std::string report(text, size);
    std::free(text);
    CHECK(report.find("LOST 3 arguments in transport") != std::string::npos);
    CHECK(report.find("LOST the bytes of 1 arguments (1 payload chunks dropped)") != std::string::npos);
    CHECK(report.find("DROPPED 1 of 129 records in args dump (producer 0), 3 items in them") != std::string::npos);
}

TEST_CASE("a call record that does not decode is counted and named; the rest of its buffer is not trusted") {
    const auto prefix = dump_test::fresh_prefix("malformed");
    dfx::channel_registry channels;
    dfx::args_dump_host<> host(2, prefix, dump_test::small_layout(), channels);
    std::int32_t n = 1;
    dfx::task_args<> scalar_args;
    scalar_args.add_scalar(n);
    {
        using t = dump_test::types<2>;
        auto sink = channels.sink<t::sink>(0);
        t::view view{&sink};
        view.before_dispatch(1, aiv0_kernel0, scalar_args);  // kept
        // Straight into the channel: a scalar entry whose stage byte is 3.
        dfx::args_call_record* bad = sink.claim<dfx::args_call_record>(16);
        REQUIRE(bad != nullptr);
        *bad = dfx::args_call_record{.task_id = 2, .payload_batch = 0, .kernel_ids = {-1, 0, -1}, .size = 16};
        const std::uint64_t entry[2] = {1u | 1u << 10 | 2u << 16 | std::uint64_t{3} << 32, 7};
        std::memcpy(dfx::packed_payload(bad), entry, sizeof entry);
        sink.commit<dfx::args_call_record>(16);
        view.before_dispatch(3, aiv0_kernel0, scalar_args);  // after it in the same buffer: not trusted
    }
    host.start();
    host.stop();
    const dfx::args_dump_summary s = host.summary();
    CHECK(s.args == 1);
    CHECK(s.malformed_calls == 2);
    CHECK(s.malformed_error == "an argument entry has an unknown stage");
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    dfx::write_args_dump_report(out, s);
    std::fclose(out);
    const std::string report(text, size);
    std::free(text);
    CHECK(report.find("LOST the arguments of 2 call records that did not decode: an argument entry has an unknown stage") !=
          std::string::npos);
    const auto entries = host.entries();
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].record.task_id == 1);
    // The manifest says so too: it is not written as if it were whole.
    const auto json = host.write();
    REQUIRE(!json.empty());
    CHECK(dump_test::read_file(json).find("\"dropped_overwrite\": 0,\n  \"malformed_call_records\": 2,\n") !=
          std::string::npos);
}

TEST_CASE("several scheduler threads under heavy backpressure: every byte arrives, each payload contiguous") {
    constexpr std::uint32_t threads = 3;
    constexpr std::uint32_t tasks = 150;
    dfx::args_dump_layout layout;
    layout.scheduler_threads = threads;
    layout.records = {2, 8};
    layout.payload = {2, 3};  // 6 chunks in flight per thread: the producers block constantly
    const auto prefix = dump_test::fresh_prefix("threads");
    dfx::channel_registry channels;
    dfx::args_dump_host<> host(2, prefix, layout, channels, {.drain_threads = 2});
    using t = dump_test::types<2>;
    // Task k of thread th: one input of (k * 97) % 9000 + 1 bytes, pattern from (thread, task, byte).
    const auto pattern = [](std::uint32_t th, std::uint32_t k, std::uint32_t i) {
        return static_cast<std::uint8_t>(th * 101 + k * 31 + i * 7);
    };
    const auto size_of = [](std::uint32_t k) { return (k * 97) % 9000 + 1; };
    host.start();
    std::vector<std::thread> workers;
    for (std::uint32_t th = 0; th < threads; ++th)
        workers.emplace_back([&, th] {
            auto sink = channels.sink<t::sink>(th);
            t::view view{&sink};
            std::vector<std::uint8_t> data;
            for (std::uint32_t k = 0; k < tasks; ++k) {
                data.resize(size_of(k));
                for (std::uint32_t i = 0; i < data.size(); ++i) data[i] = pattern(th, k, i);
                dfx::tensor_view v;
                v.addr = reinterpret_cast<std::uintptr_t>(data.data());
                v.dtype = static_cast<std::uint8_t>(dtype::uint8);
                v.ndims = 1;
                v.shape[0] = static_cast<std::uint32_t>(data.size());
                v.strides[0] = 1;
                dfx::task_args<> args;
                args.add_input(v);
                view.before_dispatch((std::uint64_t{th} << 32) | k, aiv0_kernel0, args);
            }
        });
    for (auto& w : workers) w.join();
    host.stop();
    for (const auto& c : host.report()) {
        CHECK(c.dropped == 0);
        CHECK(c.balanced());
    }
    const auto entries = host.entries();
    REQUIRE(entries.size() == threads * tasks);
    host.write();
    const std::string bin = dump_test::read_file(prefix / "args_dump" / "args.bin");
    std::uint64_t total = 0;
    bool bytes_ok = true;
    for (const auto& e : entries) {
        const auto th = static_cast<std::uint32_t>(e.record.task_id >> 32);
        const auto k = static_cast<std::uint32_t>(e.record.task_id);
        CHECK(e.bin_size == size_of(k));
        CHECK_FALSE(e.overwritten);
        for (std::uint32_t i = 0; i < e.bin_size && bytes_ok; ++i)
            bytes_ok = static_cast<std::uint8_t>(bin[e.bin_offset + i]) == pattern(th, k, i);
        total += e.bin_size;
    }
    CHECK(bytes_ok);
    CHECK(bin.size() == total);  // no holes: nothing was lost
    // Sorted by task id: thread 0's tasks first.
    CHECK(entries.front().record.task_id == 0);
    CHECK(entries.back().record.task_id == ((std::uint64_t{threads - 1} << 32) | (tasks - 1)));
}

TEST_CASE("the host can be built from the policy type selection hands out; it registers both channels per thread") {
    const auto prefix = dump_test::fresh_prefix("typed");
    dfx::channel_registry channels;
    {
        dfx::args_dump_host<> host(dfx::dump_level<2>{}, prefix, {.scheduler_threads = 3, .records = {2, 2}, .payload = {2, 2}},
                                   channels);
        CHECK(host.level() == 2);
        CHECK(host.arena_bytes() == 4 * dfx::args_payload_chunk_bytes);
        CHECK(channels.count<dfx::args_call_record>() == 3);
        CHECK(channels.count<dfx::args_payload_chunk>() == 3);
    }
    CHECK_FALSE(std::filesystem::exists(prefix / "args_dump"));  // never written: nothing left behind
    CHECK_THROWS_WITH_AS(dfx::args_dump_host<>(3, prefix, {}, channels), "args dump: dump level in [1, 2] expected, got 3",
                         dfx::output_error);
}
