// A record stream that is not exactly task, tensors, deps per submit is
// refused with an output_error that says which record and what is wrong,
// and write_deps_json_file then writes nothing.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "dep_gen_test_support.hpp"
#include "dfx/output/deps_json.hpp"

using namespace dg;

namespace {

const auto some_view = view(0x1000, 64, dtype::float32, {16}, {1});

dfx::dep_gen_record task_part(std::uint64_t id, std::uint16_t tensors, std::uint32_t deps) {
    dfx::dep_gen_record r;
    r.task_id = id;
    r.part = dfx::dep_gen_part::task;
    r.task.tensor_count = tensors;
    r.task.dep_count = deps;
    return r;
}

dfx::dep_gen_record tensor_part(std::uint64_t id, std::uint8_t index, arg_type type = arg_type::input,
                                bool has_view = true) {
    dfx::dep_gen_record r;
    r.task_id = id;
    r.part = dfx::dep_gen_part::tensor;
    r.tensor = dfx::dep_gen_tensor_part{};
    r.tensor.index = index;
    r.tensor.type = type;
    r.tensor.has_view = has_view;
    if (has_view) r.tensor.view = some_view;
    return r;
}

dfx::dep_gen_record deps_part(std::uint64_t id, std::uint8_t count) {
    dfx::dep_gen_record r;
    r.task_id = id;
    r.part = dfx::dep_gen_part::deps;
    r.deps = dfx::dep_gen_deps_part{};
    r.count = count;
    for (std::uint8_t k = 0; k < count; ++k) r.deps.deps[k] = 100 + k;
    return r;
}

// The message the replay refuses `records` with ("" if it does not).
std::string refusal(const std::vector<dfx::dep_gen_record>& records) {
    try {
        (void)dfx::replay_dep_gen(std::span<const dfx::dep_gen_record>(records));
    } catch (const dfx::output_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a well-formed stream is accepted (the builders below start from it)") {
    CHECK(refusal({task_part(5, 1, 15), tensor_part(5, 0), deps_part(5, 14), deps_part(5, 1)}) == "");
    CHECK(refusal({task_part(5, 0, 0), task_part(6, 0, 0)}) == "");
}

TEST_CASE("a tensor or deps part without a preceding task part") {
    CHECK(refusal({tensor_part(5, 0)}) ==
          "malformed dep_gen record stream: record 0 (tensor part, task 5): tensor part without a preceding task part");
    CHECK(refusal({deps_part(5, 1)}) ==
          "malformed dep_gen record stream: record 0 (deps part, task 5): deps part without a preceding task part");
    // After a complete submit, a part of another task has no task part either.
    CHECK(refusal({task_part(5, 0, 0), tensor_part(6, 0)}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 6): tensor part without a preceding task part");
}

TEST_CASE("fewer parts than announced") {
    CHECK(refusal({task_part(5, 2, 0), tensor_part(5, 0), task_part(6, 0, 0)}) ==
          "malformed dep_gen record stream: record 2 (task part, task 6): the previous submit is incomplete: "
          "task 5 has 1 of 2 tensor parts and 0 of 0 deps");
    CHECK(refusal({task_part(5, 0, 20), deps_part(5, 14)}) ==
          "malformed dep_gen record stream: the stream ends inside a submit: task 5 has 0 of 0 tensor parts and "
          "14 of 20 deps");
    CHECK(refusal({task_part(5, 1, 0)}) ==
          "malformed dep_gen record stream: the stream ends inside a submit: task 5 has 0 of 1 tensor parts and "
          "0 of 0 deps");
}

TEST_CASE("a part with a different task_id inside an incomplete submit") {
    CHECK(refusal({task_part(5, 1, 0), tensor_part(6, 0)}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 6): belongs to another task while the open "
          "submit is incomplete: task 5 has 0 of 1 tensor parts and 0 of 0 deps");
    CHECK(refusal({task_part(5, 0, 3), deps_part(6, 3)}) ==
          "malformed dep_gen record stream: record 1 (deps part, task 6): belongs to another task while the open "
          "submit is incomplete: task 5 has 0 of 0 tensor parts and 0 of 3 deps");
}

TEST_CASE("tensor parts beyond tensor_count or out of index order") {
    CHECK(refusal({task_part(5, 1, 0), tensor_part(5, 3)}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 5): tensor index 3 is beyond the task's "
          "tensor_count 1");
    // One tensor part too many after a complete submit of the same task.
    CHECK(refusal({task_part(5, 1, 0), tensor_part(5, 0), tensor_part(5, 1)}) ==
          "malformed dep_gen record stream: record 2 (tensor part, task 5): tensor index 1 is beyond the task's "
          "tensor_count 1");
    CHECK(refusal({task_part(5, 2, 0), tensor_part(5, 1), tensor_part(5, 0)}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 5): tensor index 1 is out of order: "
          "expected index 0");
    CHECK(refusal({task_part(5, 2, 0), tensor_part(5, 0), tensor_part(5, 0)}) ==
          "malformed dep_gen record stream: record 2 (tensor part, task 5): tensor index 0 is out of order: "
          "expected index 1");
}

TEST_CASE("deps parts out of place or holding the wrong number of deps") {
    CHECK(refusal({task_part(5, 1, 1), deps_part(5, 1), tensor_part(5, 0)}) ==
          "malformed dep_gen record stream: record 1 (deps part, task 5): deps part before all tensor parts: task 5 "
          "has 0 of 1 tensor parts and 0 of 1 deps");
    CHECK(refusal({task_part(5, 0, 1), deps_part(5, 1), deps_part(5, 1)}) ==
          "malformed dep_gen record stream: record 2 (deps part, task 5): one deps part more than the task's "
          "dep_count 1 needs");
    CHECK(refusal({task_part(5, 0, 20), deps_part(5, 6), deps_part(5, 14)}) ==
          "malformed dep_gen record stream: record 1 (deps part, task 5): deps part holds 6 deps, expected 14 (task 5 "
          "has 0 of 0 tensor parts and 0 of 20 deps)");
    CHECK(refusal({task_part(5, 0, 2), deps_part(5, 0)}) ==
          "malformed dep_gen record stream: record 1 (deps part, task 5): deps part holds 0 deps, expected 2 (task 5 "
          "has 0 of 0 tensor parts and 0 of 2 deps)");
}

TEST_CASE("an unknown part kind") {
    auto odd = task_part(5, 0, 0);
    odd.part = static_cast<dfx::dep_gen_part>(7);
    CHECK(refusal({task_part(4, 0, 0), odd}) ==
          "malformed dep_gen record stream: record 1 (unknown part, task 5): unknown part kind 7");
}

TEST_CASE("a task part announcing more tensors than a submit can have") {
    CHECK(refusal({task_part(5, 33, 0)}) ==
          "malformed dep_gen record stream: record 0 (task part, task 5): tensor_count 33 is above 32");
}

TEST_CASE("tensor parts that cannot be replayed") {
    CHECK(refusal({task_part(5, 1, 0), tensor_part(5, 0, arg_type::input, false)}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 5): tensor index 0 is not OUTPUT but carries "
          "no tensor view");
    CHECK(refusal({task_part(5, 1, 0), tensor_part(5, 0, static_cast<arg_type>(9))}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 5): tensor index 0 has unknown argument type 9");
    auto deep = tensor_part(5, 0);
    deep.tensor.view.ndims = 6;
    CHECK(refusal({task_part(5, 1, 0), deep}) ==
          "malformed dep_gen record stream: record 1 (tensor part, task 5): tensor index 0 has ndims 6, above 5");
    // OUTPUT without a view is the normal case.
    CHECK(refusal({task_part(5, 1, 0), tensor_part(5, 0, arg_type::output, false)}) == "");
}

TEST_CASE("write_deps_json_file refuses a malformed stream, names the file, and writes nothing") {
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_dep_gen_bad_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const std::vector<dfx::dep_gen_record> records{task_part(5, 2, 0), tensor_part(5, 0)};
    const std::string expected = (dir / "deps.json").string() +
                                 ": not written: malformed dep_gen record stream: the stream ends inside a submit: "
                                 "task 5 has 1 of 2 tensor parts and 0 of 0 deps";
    CHECK_THROWS_WITH_AS(dfx::write_deps_json_file(dir, records), expected.c_str(), dfx::output_error);
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));

    // Nor does it replace an earlier good file with a wrong one.
    (void)dfx::write_deps_json_file(dir, {});
    CHECK_THROWS_AS(dfx::write_deps_json_file(dir, records), dfx::output_error);
    CHECK(read_text((dir / "deps.json").string()) == "{\"tasks\":[],\"tensors\":[],\"edges\":[]}\n");
    std::filesystem::remove_all(dir);
}
