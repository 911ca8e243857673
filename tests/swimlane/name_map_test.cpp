#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "dfx/output/name_map.hpp"

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("a name map as the reference writes it") {
    dfx::kernel_table table;
    table.orchestrator_name = "SynthOrch_l3";
    const char* names[] = {"qk_matmul", "softmax",      "pv_matmul",      "online_update", "rmsnorm",
                           "fa_fused_aic", "fa_fused_aiv", "gemm",        "add_residual",  "rope",
                           "spmd_write_aiv", "mm_mix_aic", "mm_mix_aiv"};
    for (int id = 0; id < 13; ++id) table.add(id, names[id]);

    const auto dir = std::filesystem::temp_directory_path() / "dfx_name_map_test";
    std::filesystem::remove_all(dir);
    const auto path = dfx::write_name_map(dir, "l3_deps", table);
    CHECK(path == dir / "name_map_l3_deps.json");
    CHECK(read_file(path) == read_file(std::string(DFX_CONFORMANCE_DIR) + "/l3_deps/name_map_l3_deps.json"));
}

TEST_CASE("null orchestrator, L3 file name, sanitised case names, escaping") {
    dfx::kernel_table table;
    table.add(0, "QK");
    table.add(7, "say \"hi\"\\\u00e9\U0001F600\n");
    const auto dir = std::filesystem::temp_directory_path() / "dfx_name_map_test2";
    std::filesystem::remove_all(dir);
    CHECK(dfx::write_name_map(dir, "", table) == dir / "name_map.json");
    // As Python's json.dumps(indent=2) writes it (ensure_ascii: UTF-16 escapes).
    CHECK(read_file(dir / "name_map.json") ==
          "{\n"
          "  \"level\": 2,\n"
          "  \"orchestrator_name\": null,\n"
          "  \"callable_id_to_name\": {\n"
          "    \"0\": \"QK\",\n"
          "    \"7\": \"say \\\"hi\\\"\\\\\\u00e9\\ud83d\\ude00\\n\"\n"
          "  }\n"
          "}\n");
    // json.dumps escapes DEL too (everything outside 0x20..0x7e), and writes
    // \b and \f with their short escapes.
    dfx::kernel_table controls;
    controls.add(1, "del\x7f bs\b ff\f nul" + std::string(1, '\0') + " us\x1f");
    controls.add(2, "bad\xff utf-8");  // invalid UTF-8: U+FFFD, as decoding with errors="replace" gives
    CHECK(dfx::write_name_map(dir, "controls", controls) == dir / "name_map_controls.json");
    CHECK(read_file(dir / "name_map_controls.json") ==
          "{\n"
          "  \"level\": 2,\n"
          "  \"orchestrator_name\": null,\n"
          "  \"callable_id_to_name\": {\n"
          "    \"1\": \"del\\u007f bs\\b ff\\f nul\\u0000 us\\u001f\",\n"
          "    \"2\": \"bad\\ufffd utf-8\"\n"
          "  }\n"
          "}\n");
    CHECK(dfx::write_name_map(dir, "Test Class/case 1", table) == dir / "name_map_Test_Class_case_1.json");
    CHECK(dfx::write_name_map(dir, "empty", dfx::kernel_table{}).empty());
    CHECK_FALSE(std::filesystem::exists(dir / "name_map_empty.json"));
}
