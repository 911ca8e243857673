// deps.json from hand-built record streams against goldens written by hand
// from ../shared/spec/dep-gen.md (§1.8 replay rules, §2 schema) in golden/.
// The goldens are pretty-printed for review; the writer's line is compared
// with them after their whitespace is taken out.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "dep_gen_test_support.hpp"
#include "dfx/output/deps_json.hpp"

using namespace dg;

TEST_CASE("the spec's illustrative example (§2.5) comes out byte for byte, tensor ids included") {
    // Task 0 reads external a and creates c; task 1 reads c and updates
    // external x in place; task 2 (SPMD x4) depends on task 0 and reads the
    // top half of x.
    const auto a = view(0x10000, 64, dtype::float32, {16}, {1});
    const auto c = owned_by(view(0x30000, 64, dtype::float32, {16}, {1}), 0);
    const auto x = view(0x40000, 64, dtype::float32, {4, 4}, {4, 1});
    const auto x_top = view(0x40000, 64, dtype::float32, {2, 4}, {4, 1});
    const auto records = records_of({
        {.id = 0, .kernels = {-1, 0, -1}, .args = {input(a), output()}},
        {.id = 1, .kernels = {-1, 1, -1}, .args = {input(c), inout(x)}},
        {.id = 2, .kernels = {2, -1, -1}, .args = {input(x_top)}, .deps = {0}, .block_num = 4},
    });
    CHECK(render(records) == golden("spec_example.json"));
}

TEST_CASE("explicit edges: declaration order, one per producer, unrecorded producers kept") {
    const std::uint64_t first = (1ull << 32) | 0;  // ring 1
    const auto records = records_of({
        {.id = first, .kernels = {0, -1, -1}},
        {.id = first + 1, .deps = {first, first, 7}},
    });
    CHECK(render(records) == golden("explicit.json"));
}

TEST_CASE("creator edges: from owner_task_id, once per producer, consumer geometry") {
    const auto v = owned_by(view(0x2000, 128, dtype::float16, {8, 8}, {8, 1}), 0);
    const auto records = records_of({
        {.id = 0, .args = {output()}},
        {.id = 1, .kernels = {-1, 1, -1}, .args = {input(v), input(v)}},
    });
    CHECK(render(records) == golden("creator.json"));
}

TEST_CASE("tensormap edges: producer geometry from the entry, covered vs other, INPUT removes nothing") {
    const auto y = view(0x5000, 256, dtype::int32, {64}, {1});
    const auto y_slice = view(0x5000, 256, dtype::int32, {16}, {1}, 16);
    const auto records = records_of({
        {.id = 10, .args = {output_existing(y)}},
        {.id = 11, .kernels = {-1, 1, -1}, .args = {input(y_slice)}},
        {.id = 12, .kernels = {-1, 1, -1}, .args = {input(y)}},
    });
    CHECK(render(records) == golden("tensormap.json"));
}

TEST_CASE("ordering and de-duplication across sources within one consumer") {
    // 22: explicit 20 first; arg 0 hits 21 then 20 (newest first, even though
    // 20 is an explicit dep); arg 1's creator 21 and arg 2's creator 20 are
    // suppressed (already seen); arg 3's creator 5 is new; arg 4 hits 21 and
    // 20 again (tensormap edges repeat).
    const auto z = view(0x7000, 64, dtype::float32, {16}, {1});
    const auto z_low = view(0x7000, 64, dtype::float32, {8}, {1});
    const auto w = owned_by(view(0x9000, 32, dtype::int8, {32}, {1}), 21);
    const auto v = owned_by(view(0xA000, 64, dtype::bfloat16, {32}, {1}), 20);
    const auto u = owned_by(view(0xB000, 64, dtype::uint64, {8}, {1}), 5);
    const auto records = records_of({
        {.id = 20, .args = {output_existing(z)}},
        {.id = 21, .args = {output_existing(z_low)}},
        {.id = 22, .kernels = {-1, 1, -1}, .args = {input(z), input(w), input(v), input(u), input(z)}, .deps = {20}},
    });
    CHECK(render(records) == golden("dedup.json"));
}

TEST_CASE("a covering INOUT removes the entry it covers; a partial INOUT does not") {
    // 31 covers 30, so 32 sees only 31. 33 updates half of p: 31 stays, and
    // 34 sees 33 (newest) then 31.
    const auto p = view(0xC000, 64, dtype::float32, {4, 4}, {4, 1});
    const auto p_top = view(0xC000, 64, dtype::float32, {2, 4}, {4, 1});
    const auto records = records_of({
        {.id = 30, .args = {output_existing(p)}},
        {.id = 31, .args = {inout(p)}},
        {.id = 32, .args = {input(p)}},
        {.id = 33, .args = {inout(p_top)}},
        {.id = 34, .args = {input(p)}},
    });
    CHECK(render(records) == golden("inout_cover.json"));
}

TEST_CASE("partial overlap is \"other\", disjoint slices make no edge, a newer version is \"other\"") {
    // q: an 8x8 FLOAT16 buffer; 40 wrote rows 0-3 x cols 0-3 (a strided view).
    const auto q_written = strided(view(0xD000, 128, dtype::float16, {4, 4}, {8, 1}), 28);
    const auto q_shifted = strided(view(0xD000, 128, dtype::float16, {4, 4}, {8, 1}, 2 * 8 + 2), 28);  // rows 2-5, cols 2-5
    const auto q_right = strided(view(0xD000, 128, dtype::float16, {4, 4}, {8, 1}, 4), 28);  // rows 0-3, cols 4-7
    const auto q_bottom = view(0xD000, 128, dtype::float16, {4, 8}, {8, 1}, 32);              // rows 4-7
    const auto q_v1_corner = at_version(view(0xD000, 128, dtype::float16, {1, 1}, {8, 1}, 63), 1);
    const auto records = records_of({
        {.id = 40, .args = {output_existing(q_written)}},
        {.id = 41, .kernels = {-1, 1, -1}, .args = {input(q_shifted)}},
        {.id = 42, .kernels = {-1, 1, -1}, .args = {input(q_right)}},  // flat ranges meet; columns do not
        {.id = 43, .kernels = {-1, 1, -1}, .args = {input(q_bottom)}},  // flat ranges do not meet
        {.id = 44, .kernels = {-1, 1, -1}, .args = {input(q_v1_corner)}},
    });
    CHECK(render(records) == golden("overlap.json"));
}

TEST_CASE("SPMD block_num, a stored 0 written as 1, and early_dispatch") {
    const auto records = records_of({
        {.id = 100, .kernels = {3, 4, 4}, .flags = dfx::dep_gen_early_dispatch, .block_num = 8},
        {.id = 101, .kernels = {-1, 5, -1}, .block_num = 0},
        {.id = 102, .kernels = {6, -1, -1}},
    });
    CHECK(render(records) == golden("spmd.json"));
}

TEST_CASE("a dummy task: kernel_ids all -1, no args") {
    const auto records = records_of({
        {.id = 200, .kernels = {-1, -1, -1}},
        {.id = 201, .deps = {200}},
    });
    CHECK(render(records) == golden("dummy.json"));
}

TEST_CASE("more than 64 explicit deps in one record, none lost, duplicates once") {
    std::vector<std::uint64_t> deps;
    for (std::uint64_t p = 1000; p < 1070; ++p) deps.push_back(p);
    deps.push_back(1005);  // 71 deps: one record holds them all
    stream records;
    append(records, {.id = 300, .deps = deps});
    REQUIRE(records.size() == sizeof(dfx::dep_gen_record) + 71 * 8);
    CHECK(render(records) == golden("many_deps.json"));
}

TEST_CASE("manual scope: only explicit edges, no tensormap insertion; manual_dep skips the tensormap only") {
    // 51 (manual) updates m but is neither looked up nor inserted, so 52
    // still sees 50. 53's INOUT has manual_dep: its creator edge stays, its
    // lookup and insertion go, so 54 sees 50 too.
    const auto m = view(0xE000, 64, dtype::float32, {16}, {1});
    const auto m_owned = owned_by(m, 50);
    const auto records = records_of({
        {.id = 50, .args = {output_existing(m)}},
        {.id = 51, .args = {inout(m_owned)}, .deps = {50}, .flags = dfx::dep_gen_in_manual_scope},
        {.id = 52, .args = {input(m)}},
        {.id = 53, .args = {inout(manual_dep(m_owned))}},
        {.id = 54, .args = {input(m)}},
    });
    CHECK(render(records) == golden("manual.json"));
}

TEST_CASE("NO_DEP: written as UNKNOWN, registered, creator edge only, never inserted") {
    const auto n = view(0xF000, 64, dtype::float32, {16}, {1});
    const auto records = records_of({
        {.id = 60, .args = {output_existing(n)}},
        {.id = 61, .args = {no_dep(owned_by(n, 7))}},
        {.id = 62, .args = {input(n)}},
    });
    CHECK(render(records) == golden("no_dep.json"));
}

TEST_CASE("tensors[]: first-seen order, one per (addr, version), numel 0 for size 0 or unknown dtype, no OUTPUT") {
    const auto a = view(0x11000, 64, dtype::float32, {16}, {1});
    const auto a_half = view(0x11000, 64, dtype::float32, {8}, {1}, 8);
    auto b = view(0x12000, 64, dtype::float32, {4}, {1});
    b.dtype = 99;  // not a DataType code
    const auto c = view(0x13000, 0, dtype::int64, {2}, {1});
    const auto d = view(0x14000, 10, dtype::fp4e2m1, {10}, {1});
    const auto e = view(0x15000, 6, dtype::uint16, {3}, {1});
    // An OUTPUT part that does carry a view: still only {idx, type}.
    const arg output_with_view{dfx::arg_type::output, view(0x99000, 64, dtype::float32, {16}, {1})};
    const auto records = records_of({
        {.id = 70, .args = {input(a), output_with_view, input(a_half), input(at_version(a, 1)), input(b), input(c), input(d)}},
        {.id = 71, .args = {input(b), input(e)}},
    });
    CHECK(render(records) == golden("tensors_table.json"));
}

TEST_CASE("u64 values above 2^53 are exact decimal strings; a negative version stays signed") {
    const std::uint64_t producer = (1ull << 53) + 3;
    const std::uint64_t consumer = UINT64_MAX - 1;
    const auto g = at_version(view(0xFFFF800000001000ull, 1ull << 62, dtype::uint8, {4}, {1}, (1ull << 53) + 1), -1);
    const auto records = records_of({
        {.id = producer, .args = {output_existing(g)}},
        {.id = consumer, .kernels = {-1, 1, -1}, .args = {input(owned_by(g, UINT64_MAX - 2))}, .deps = {producer}},
    });
    CHECK(render(records) == golden("big_u64.json"));
}

TEST_CASE("no records is a clean run with empty arrays") {
    CHECK(render({}) == "{\"tasks\":[],\"tensors\":[],\"edges\":[]}\n");
}

TEST_CASE("write_deps_json_file writes <prefix>/deps.json as one line, creating the directory") {
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_dep_gen_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto prefix = dir / "nested" / "run";
    const auto records = records_of({
        {.id = 0, .kernels = {-1, 0, -1}, .args = {input(view(0x10000, 64, dtype::float32, {16}, {1})), output()}},
        {.id = 1, .kernels = {-1, 1, -1},
         .args = {input(owned_by(view(0x30000, 64, dtype::float32, {16}, {1}), 0)),
                  inout(view(0x40000, 64, dtype::float32, {4, 4}, {4, 1}))}},
        {.id = 2, .kernels = {2, -1, -1}, .args = {input(view(0x40000, 64, dtype::float32, {2, 4}, {4, 1}))},
         .deps = {0}, .block_num = 4},
    });
    const auto path = dfx::write_deps_json_file(prefix, records);
    CHECK(path == prefix / "deps.json");
    const std::string text = read_text(path.string());
    CHECK(text == golden("spec_example.json"));
    CHECK(text.find('\n') == text.size() - 1);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(prefix)) ++entries;
    CHECK(entries == 1);  // no temporary left behind

    // An empty capture still gets its file.
    const auto empty_prefix = dir / "empty";
    CHECK(read_text(dfx::write_deps_json_file(empty_prefix, {}).string()) ==
          "{\"tasks\":[],\"tensors\":[],\"edges\":[]}\n");
    std::filesystem::remove_all(dir);
}
