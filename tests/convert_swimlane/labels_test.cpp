// Task and kernel labels (spec chip-swimlane.md §4.3).
#include <doctest/doctest.h>

#include "dfx/convert/swimlane/labels.hpp"

namespace sw = dfx::convert::swimlane;

TEST_CASE("task ids display as t<local> on ring 0 and r<ring>t<local> otherwise") {
    CHECK(sw::format_task_display(5) == "t5");
    CHECK(sw::format_task_display((std::uint64_t{1} << 32) | 5) == "r1t5");
    CHECK(sw::format_task_display((std::uint64_t{0x1FF} << 32) | 3) == "r255t3");  // ring is 8 bits
    CHECK(sw::format_task_display(18446744073709551615ull) == "r255t4294967295");
}

TEST_CASE("func ids get bijective base-26 letters") {
    CHECK(sw::func_id_letters(0) == "0_a");
    CHECK(sw::func_id_letters(25) == "25_z");
    CHECK(sw::func_id_letters(26) == "26_aa");
    CHECK(sw::func_id_letters(27) == "27_ab");
    CHECK(sw::func_id_letters(701) == "701_zz");
    CHECK(sw::func_id_letters(702) == "702_aaa");
    CHECK(sw::func_id_letters(-1) == "-1_");
}

TEST_CASE("labels: anonymous, named, lettered, SPMD") {
    sw::name_map names;
    names.names = {{"0", "QK"}, {"1", "fa_SPMD_kernel"}, {"2", "old"}, {"2", "new"}};
    CHECK(sw::task_label(-1, names, "t1", false) == "task(t1)");
    CHECK(sw::task_label(0, names, "r1t0", false) == "QK(r1t0)");
    CHECK(sw::task_label(3, names, "t1", false) == "func_3_d(t1)");
    CHECK(sw::task_label(2, names, "t1", false) == "new(t1)");  // later duplicate key wins
    CHECK(sw::task_label(0, names, "t1", true) == "QK_spmd(t1)");
    CHECK(sw::task_label(-1, names, "t1", true) == "task_spmd(t1)");
    CHECK(sw::task_label(1, names, "t1", true) == "fa_SPMD_kernel(t1)");  // already says spmd
    CHECK(sw::func_name(26, names) == "func_26_aa");
}
