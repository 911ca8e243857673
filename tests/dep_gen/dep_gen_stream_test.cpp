// A record stream that is not exactly one submit record per submit (then
// deps records while it says more_deps), each record whole, is refused with
// an output_error that says which record, where and what is wrong, and
// write_deps_json_file then writes nothing.
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

std::byte type_byte(arg_type type, bool has_view) {
    return static_cast<std::byte>(static_cast<std::uint8_t>(type) | (has_view ? dfx::dep_gen_arg_has_view : 0));
}

// A submit record of task `id` with one INPUT argument and its view, and `deps` deps.
void put_submit(stream& out, std::uint64_t id, std::uint16_t deps = 0, bool more = false) {
    dfx::dep_gen_record h = header(id);
    h.tensor_count = 1;
    h.view_count = 1;
    h.dep_count = deps;
    h.more_deps = more;
    std::vector<std::byte> payload(8);  // one type byte, padded to 8
    payload[0] = type_byte(arg_type::input, true);
    put_bytes(payload, some_view);
    for (std::uint64_t d = 0; d < deps; ++d) put_bytes(payload, 100 + d);
    put(out, h, payload);
}

void put_deps(stream& out, std::uint64_t id, std::uint16_t deps, bool more = false) {
    dfx::dep_gen_record h = header(id, dfx::dep_gen_kind::deps);
    h.dep_count = deps;
    h.more_deps = more;
    std::vector<std::byte> payload;
    for (std::uint64_t d = 0; d < deps; ++d) put_bytes(payload, 200 + d);
    put(out, h, payload);
}

// One submit record of task 5 with one argument of `type`, `has_view` as
// said and its view (`view_count` views) following.
stream one_argument(arg_type type, bool has_view, std::uint8_t view_count, const dfx::tensor_view& v = some_view) {
    stream out;
    dfx::dep_gen_record h = header(5);
    h.tensor_count = 1;
    h.view_count = view_count;
    std::vector<std::byte> payload(8);
    payload[0] = type_byte(type, has_view);
    for (std::uint8_t k = 0; k < view_count; ++k) put_bytes(payload, v);
    put(out, h, payload);
    return out;
}

// The message the replay refuses `records` with ("" if it does not).
std::string refusal(const stream& records) {
    try {
        (void)dfx::replay_dep_gen(std::span<const std::byte>(records));
    } catch (const dfx::output_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a well-formed stream is accepted (the builders below start from it)") {
    stream s;
    put_submit(s, 5, 2, true);
    put_deps(s, 5, 3, true);
    put_deps(s, 5, 1);
    put_submit(s, 6);
    CHECK(refusal(s) == "");
    const auto submits = dfx::read_dep_gen_submits(s);
    REQUIRE(submits.size() == 2);
    CHECK(submits[0].explicit_deps == std::vector<std::uint64_t>{100, 101, 200, 201, 202, 200});
    CHECK(submits[0].task.dep_count == 6);
    REQUIRE(submits[0].tensors.size() == 1);
    CHECK(submits[0].tensors[0].view.addr == 0x1000);
    CHECK(submits[1].explicit_deps.empty());
}

TEST_CASE("a stream cut inside a record: the header or the payload runs past its end") {
    stream s;
    put_submit(s, 5);
    const std::size_t whole = s.size();  // 32 + 8 + 88 = 128
    stream cut(s.begin(), s.begin() + 20);
    CHECK(refusal(cut) ==
          "malformed dep_gen record stream: record 0 (byte 0): only 20 bytes left, a record header takes 32");
    put_submit(s, 6);
    cut.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(whole + 100));
    CHECK(refusal(cut) == "malformed dep_gen record stream: record 1 (byte 128, task 6): its payload of 96 bytes runs "
                          "past the stream's end (68 bytes left)");
}

TEST_CASE("counts a record cannot have") {
    stream s;
    dfx::dep_gen_record h = header(5);
    h.tensor_count = 33;
    put(s, h, std::vector<std::byte>(40));
    CHECK(refusal(s) == "malformed dep_gen record stream: record 0 (byte 0, task 5): tensor_count 33 is above 32");
    s.clear();
    h.tensor_count = 1;
    h.view_count = 2;
    put(s, h, std::vector<std::byte>(8 + 2 * 88));
    CHECK(refusal(s) == "malformed dep_gen record stream: record 0 (byte 0, task 5): view_count 2 is above its "
                        "tensor_count 1");
}

TEST_CASE("an unknown record kind") {
    stream s;
    put_submit(s, 4);
    put(s, header(5, static_cast<dfx::dep_gen_kind>(7)), {});
    CHECK(refusal(s) == "malformed dep_gen record stream: record 1 (byte 128, task 5): unknown record kind 7");
}

TEST_CASE("deps records out of place, and a submit cut short") {
    stream s;
    put_deps(s, 5, 1);
    CHECK(refusal(s) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): deps record without a submit that expects it");
    s.clear();
    put_submit(s, 5);
    put_deps(s, 5, 1);
    CHECK(refusal(s) ==
          "malformed dep_gen record stream: record 1 (byte 128, task 5): deps record without a submit that expects it");
    s.clear();
    put_submit(s, 5, 0, true);
    put_deps(s, 6, 1);
    CHECK(refusal(s) == "malformed dep_gen record stream: record 1 (byte 128, task 6): deps record of another task "
                        "while task 5 expects its deps");
    s.clear();
    put_submit(s, 5, 0, true);
    put_submit(s, 6);
    CHECK(refusal(s) == "malformed dep_gen record stream: record 1 (byte 128, task 6): a submit record while task 5 "
                        "still expects a deps record");
    s.clear();
    put_submit(s, 5, 1, true);
    put_deps(s, 5, 2, true);
    CHECK(refusal(s) == "malformed dep_gen record stream: the stream ends inside task 5, which expects another deps "
                        "record (3 deps so far)");
    s.clear();
    dfx::dep_gen_record d = header(5, dfx::dep_gen_kind::deps);
    d.tensor_count = 1;
    put_submit(s, 5, 0, true);
    put(s, d, std::vector<std::byte>(8));
    CHECK(refusal(s) == "malformed dep_gen record stream: record 1 (byte 128, task 5): deps record with tensors");
}

TEST_CASE("arguments that cannot be replayed") {
    CHECK(refusal(one_argument(arg_type::input, false, 0)) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): tensor index 0 is not OUTPUT but carries no "
          "tensor view");
    CHECK(refusal(one_argument(static_cast<arg_type>(9), true, 1)) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): tensor index 0 has unknown argument type 9");
    auto deep = some_view;
    deep.ndims = 6;
    CHECK(refusal(one_argument(arg_type::input, true, 1, deep)) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): tensor index 0 has ndims 6, above 5");
    CHECK(refusal(one_argument(arg_type::inout, true, 0)) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): more arguments carry a view than the record's "
          "view_count 0");
    CHECK(refusal(one_argument(arg_type::output, false, 1)) ==
          "malformed dep_gen record stream: record 0 (byte 0, task 5): view_count 1 but 0 arguments carry a view");
    // OUTPUT without a view is the normal case; one with a view is read past (the replay ignores it).
    CHECK(refusal(one_argument(arg_type::output, false, 0)) == "");
    CHECK(refusal(one_argument(arg_type::output, true, 1)) == "");
}

TEST_CASE("write_deps_json_file refuses a malformed stream, names the file, and writes nothing") {
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_dep_gen_bad_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    stream records;
    put_submit(records, 5, 0, true);
    const std::string expected = (dir / "deps.json").string() +
                                 ": not written: malformed dep_gen record stream: the stream ends inside task 5, "
                                 "which expects another deps record (0 deps so far)";
    CHECK_THROWS_WITH_AS(dfx::write_deps_json_file(dir, records), expected.c_str(), dfx::output_error);
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));

    // Nor does it replace an earlier good file with a wrong one.
    (void)dfx::write_deps_json_file(dir, {});
    CHECK_THROWS_AS(dfx::write_deps_json_file(dir, records), dfx::output_error);
    CHECK(read_text((dir / "deps.json").string()) == "{\"tasks\":[],\"tensors\":[],\"edges\":[]}\n");
    std::filesystem::remove_all(dir);
}
