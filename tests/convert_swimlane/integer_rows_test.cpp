// The records reader's fast path for task rows (common/integer_rows_scanner.hpp):
// the scanner accepts exactly its documented subset of JSON, and the reader
// reads the same rows, and fails with the same message, with it as without it.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dfx/convert/common/fast_path_tokens.hpp"
#include "dfx/convert/common/integer_rows_scanner.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "../support/scratch_dir.hpp"

namespace conv = dfx::convert;
namespace sw = dfx::convert::swimlane;
using test_support::scratch_dir;

namespace {

bool scans(std::string_view text) {
    std::vector<conv::integer_row<6>> rows;
    return conv::scan_integer_rows(text, rows);
}

// Everything a read gives (or its error message), as text to compare.
std::string outcome(const std::string& path, bool fast, bool lenient, bool times_unused = false) {
    try {
        const sw::records_file f =
            sw::records_reader(path, 64, 96).lenient(lenient).fast_rows(fast).times_unused(times_unused).read();
        std::string s = "base " + std::to_string(f.base_cycles) + " min " + std::to_string(f.min_device_cycles) +
                        " max " + std::to_string(f.max_device_cycles) + "\n";
        for (const auto& r : f.aicore)
            s += "core " + std::to_string(r.core) + " " + std::to_string(r.token) + " " + std::to_string(r.reg) + " " +
                 std::to_string(r.start) + " " + std::to_string(r.end) + " " + std::to_string(r.r2s) + "\n";
        for (const auto& r : f.aicpu)
            s += "cpu " + std::to_string(r.core) + " " + std::to_string(r.reg) + " " + std::to_string(r.dispatch) + " " +
                 std::to_string(r.finish) + "\n";
        return s;
    } catch (const conv::input_error& e) {
        return std::string("error: ") + e.what();
    }
}

std::string records_doc(const std::string& aicore, const std::string& aicpu) {
    return R"({"chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},)"
           R"( "aicore_tasks": )" + aicore + R"(, "aicpu_tasks": )" + aicpu + "}";
}

}  // namespace

TEST_CASE("the row scanner reads arrays of short integer arrays exactly") {
    std::vector<conv::integer_row<6>> rows;
    REQUIRE(conv::scan_integer_rows(" [ [3, 17 ,5,1000,\n1200, 40] ,[-0, -7, 999999999999999999]\t,[] ] ", rows));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].n == 6);
    CHECK(rows[0].col == std::array<std::int64_t, 6>{3, 17, 5, 1000, 1200, 40});
    CHECK(rows[1].n == 3);
    CHECK(rows[1].col[0] == 0);
    CHECK(rows[1].col[1] == -7);
    CHECK(rows[1].col[2] == 999999999999999999);
    CHECK(rows[2].n == 0);
    rows.clear();
    CHECK(conv::scan_integer_rows("[]", rows));
    CHECK(rows.empty());
}

TEST_CASE("the row scanner says no to everything outside its subset") {
    for (const char* text : {
             "",                          // nothing
             "[",                         // unclosed
             "[[1,2]",                    // unclosed outer
             "[[1,2],]",                  // trailing comma
             "[[1,],[2]]",                // trailing comma in a row
             "[[1 2]]",                   // missing comma
             "[[1.0]]",                   // a fraction
             "[[1e3]]",                   // an exponent
             "[[01]]",                    // a leading zero
             "[[-]]",                     // a lone minus
             "[[+1]]",                    // a plus sign
             "[[1000000000000000000]]",   // 19 digits: the general path's
             "[[\"1\"]]",                 // a string
             "[[true]]", "[[null]]",      // other types
             "[[[1]]]",                   // nested deeper
             "[1]",                       // a bare integer for a row
             "[[1,2,3,4,5,6,7]]",         // more columns than the row holds
             "[[1]] x",                   // trailing bytes
             "[[1]]]",                    // one bracket too many
             "[[1],[2]",                  // the last row's ']' ends the text
             "[[1]  \n",                  // the same before trailing whitespace
             "[]]", "[ ] x", "   ",       // after an empty outer array; only whitespace
             "[[1],\n[2],[3]]  ]",        // a bracket after the outer array's end
         }) {
        CAPTURE(text);
        CHECK_FALSE(scans(text));
    }
}

TEST_CASE("the row scanner reads nothing past a text whose last byte is not its closing bracket") {
    // Each in a heap block of exactly its size (no terminating NUL to stop
    // a loop over digits or whitespace): ASan reports a read past it.
    for (const std::string text : {"[[1, 2", "[[1, 2 ", "[[12", "[[1], [2", "[[1]]x", "[[1]] x", "[[", "[[-", "["}) {
        CAPTURE(text);
        const auto block = std::make_unique<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        CHECK_FALSE(scans(std::string_view(block.get(), text.size())));
    }
}

TEST_CASE("fast_path::integer takes -?(0|[1-9][0-9]{0,17}) when no fraction or exponent follows") {
    struct token {
        const char* text;
        bool taken;
        std::int64_t value;
        std::size_t length;  // of the integer, when taken
    };
    for (const token t : {token{"0]", true, 0, 1}, token{"-0,", true, 0, 2}, token{"7 ", true, 7, 1},
                          token{"123456789012345678]", true, 123456789012345678, 18},
                          token{"-123456789012345678]", true, -123456789012345678, 19},
                          token{"42}", true, 42, 2},
                          token{"1234567890123456789]", false, 0, 0},  // 19 digits
                          token{"01]", false, 0, 0}, token{"-01]", false, 0, 0}, token{"-]", false, 0, 0},
                          token{"+1]", false, 0, 0}, token{"]", false, 0, 0}, token{"x]", false, 0, 0},
                          token{"1.5]", false, 0, 0}, token{"1e5]", false, 0, 0}, token{"1E5]", false, 0, 0},
                          token{"0.0]", false, 0, 0}}) {
        CAPTURE(t.text);
        std::int64_t value = -1;
        const char* after = conv::fast_path::integer(t.text, value);
        REQUIRE((after != nullptr) == t.taken);
        if (!t.taken) continue;
        CHECK(value == t.value);
        CHECK(static_cast<std::size_t>(after - t.text) == t.length);
    }
}

TEST_CASE("fast_path::integer<false> holds a column to the subset without reading it") {
    std::int64_t value = -1;
    const char* text = "987]";
    CHECK(conv::fast_path::integer<false>(text, value) == text + 3);
    CHECK(value == 0);
    CHECK(conv::fast_path::integer<false>("-5]", value) == nullptr);  // a column it skips may not be negative
    CHECK(conv::fast_path::integer<false>("05]", value) == nullptr);
}

TEST_CASE("fast_path::closing_bracket finds a text's final ']' past trailing whitespace, or says there is none") {
    const std::string_view spaced = "[1] \n\t\r";
    CHECK(conv::fast_path::closing_bracket(spaced) == spaced.data() + 2);
    const std::string_view bare = "]";
    CHECK(conv::fast_path::closing_bracket(bare) == bare.data());
    for (const std::string_view text : {std::string_view(""), std::string_view(" \n"), std::string_view("[1] x"),
                                        std::string_view("[1"), std::string_view("[1]\v")}) {
        CAPTURE(text);
        CHECK(conv::fast_path::closing_bracket(text) == nullptr);
    }
    CHECK(*conv::fast_path::skip_space(" \t\r\nx") == 'x');
    CHECK(*conv::fast_path::skip_space("\vx") == '\v');  // not JSON whitespace
}

TEST_CASE("task rows read the same with the fast path and without it, errors included") {
    const std::vector<std::string> docs = {
        // in the subset: every batch takes the fast path
        records_doc("[[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160, 4]]",
                "[[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]]"),
        records_doc("[[0, 7, 1, 1000120, 1000620], [1, 8, 2, 1000660, 1001160]]", "[[0, 1, 0, 0], [1, 2, 5, 6]]"),
        // valid but outside the subset: the general path for that batch
        records_doc("[[0, 7, 1, 1000000000000000000, 1000000000000000005, 0]]", "[]"),
        records_doc("[[0, 18446744073709551615, 1, 10, 20, 0], [1, 8, 2, 30, 40, 0]]", "[[0, 1, 10, 20]]"),
        // out of range or malformed: the general path names the error
        records_doc("[[0, 7, 1, -5, 20, 0]]", "[]"),
        records_doc("[[0, -7, 1, 5, 20, 0]]", "[]"),
        records_doc("[[4294967296, 7, 1, 5, 20, 0]]", "[]"),
        records_doc("[[0, 7, 4294967296, 5, 20, 0]]", "[]"),
        records_doc("[[0, 7, 1, 5, 20, -1]]", "[]"),
        records_doc("[[0, 7, 1, 5]]", "[]"),
        records_doc("[[0, 7, 1, 5, 6, 7, 8]]", "[]"),
        records_doc("[[0, 7, 1, 5.5, 6, 7]]", "[]"),
        records_doc("[[0, 7, 1, 5, 6, 7]]", "[[0, 1, 10]]"),
        records_doc("[[0, 7, 1, 5, 6, 7]]", "[[0, 4294967296, 10, 20]]"),
        records_doc("[[0, 7, 1, 5, 6, 7]]", "[[0, 1, -10, 20]]"),
        records_doc("[[0, 7, 1, 5, 6, 7]]", "[[0, 1, \"10\", 20]]"),
    };
    scratch_dir dir;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        const std::string path = dir.write("r" + std::to_string(i) + ".json", docs[i]);
        for (const bool lenient : {false, true}) {
            CAPTURE(docs[i]);
            CAPTURE(lenient);
            const std::string general = outcome(path, false, lenient);
            const std::string fast = outcome(path, true, lenient);
            CHECK(fast == general);
            // Times checked, not read: the same rows and errors, every time 0.
            const std::string untimed = outcome(path, true, lenient, true);
            CHECK(untimed == outcome(path, false, lenient, true));
            if (general.rfind("error: ", 0) == 0) CHECK(untimed == general);
        }
    }
    // The first document's values, so that "the same" is not "both empty".
    const std::string first = outcome(dir.write("first.json", docs[0]), true, false);
    CHECK(first.find("core 1 4294967297 1 1000660 1001160 4") != std::string::npos);
    CHECK(first.find("cpu 1 1 1000648 1001170") != std::string::npos);
    const std::string untimed = outcome(dir.write("first.json", docs[0]), true, false, true);
    CHECK(untimed.find("base 0 min 0 max 0\n") == 0);
    CHECK(untimed.find("core 1 4294967297 1 0 0 0") != std::string::npos);
    CHECK(untimed.find("cpu 1 1 0 0") != std::string::npos);
}

TEST_CASE("the row scanner can read the first columns only and hold the others to the subset") {
    std::vector<conv::integer_row<6>> rows;
    REQUIRE(conv::scan_integer_rows<6, 3>("[[3, 17, 5, 1000, 1200, 40], [-4, 0, 6, 999999999999999999], [1]]", rows));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].n == 6);
    CHECK(rows[0].col == std::array<std::int64_t, 6>{3, 17, 5, 0, 0, 0});
    CHECK(rows[1].n == 4);
    CHECK(rows[1].col == std::array<std::int64_t, 6>{-4, 0, 6, 0, 0, 0});
    CHECK(rows[2].n == 1);
    // An unread column is held to the subset, and to no minus sign.
    for (const char* text : {"[[1, 2, 3, -4]]", "[[1, 2, 3, 4.5]]", "[[1, 2, 3, 4e5]]", "[[1, 2, 3, 04]]",
                             "[[1, 2, 3, 1000000000000000000]]", "[[1, 2, 3, \"4\"]]", "[[1, 2, 3, 4, 5, 6, 7]]"}) {
        CAPTURE(text);
        rows.clear();
        CHECK_FALSE(conv::scan_integer_rows<6, 3>(text, rows));
    }
}
