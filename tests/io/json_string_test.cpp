// The one JSON string escaper (include/dfx/io/json_string.hpp). Every
// expected literal below is written out by hand from what Python 3's json
// module writes (json.dumps(s) for the ascii style, json.dumps(s,
// ensure_ascii=False) for utf8), with invalid UTF-8 first decoded the way
// bytes.decode("utf-8", "replace") does.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "dfx/io/json_string.hpp"

namespace {

using dfx::io::json_string_style;

std::string ascii(std::string_view s) { return dfx::io::json_string(s, json_string_style::ascii); }
std::string utf8(std::string_view s) { return dfx::io::json_string(s, json_string_style::utf8); }

// Python's spelling of each control character 0x00..0x1f, the same in both styles.
constexpr std::string_view python_controls[32] = {
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
};

}  // namespace

TEST_CASE("printable ASCII is copied, quotes added, in both styles") {
    CHECK(ascii("") == "\"\"");
    CHECK(utf8("") == "\"\"");
    CHECK(ascii("QK(r0t1) ~!@#$%^&*<>/'") == "\"QK(r0t1) ~!@#$%^&*<>/'\"");
    CHECK(utf8("QK(r0t1) ~!@#$%^&*<>/'") == "\"QK(r0t1) ~!@#$%^&*<>/'\"");
}

TEST_CASE("quote and backslash get their two-character escapes") {
    CHECK(ascii(R"(a"b\c)") == R"("a\"b\\c")");
    CHECK(utf8(R"(a"b\c)") == R"("a\"b\\c")");
    CHECK(ascii(R"(\\"")") == R"("\\\\\"\"")");
    CHECK(utf8("\"") == R"("\"")");
}

TEST_CASE("every control character is escaped the way Python writes it") {
    for (int c = 0; c < 32; ++c) {
        CAPTURE(c);
        const std::string in(1, static_cast<char>(c));
        // (Appended, not `"\"" + std::string(...)`: g++ 12 at -O3 warns on that
        // operator+ with a false -Wrestrict, GCC PR 105329.)
        std::string expected = "\"";
        expected.append(python_controls[c]).append("\"");
        CHECK(ascii(in) == expected);
        CHECK(utf8(in) == expected);
        // Between other characters, so the copied runs around an escape are right too.
        const std::string between = "x" + in + "y";
        std::string expected_between = "\"x";
        expected_between.append(python_controls[c]).append("y\"");
        CHECK(ascii(between) == expected_between);
        CHECK(utf8(between) == expected_between);
    }
    // The short escapes, spelled out once more: \b and \f are not \u0008 / \u000c.
    CHECK(utf8("\b\f\n\r\t") == R"("\b\f\n\r\t")");
    CHECK(ascii(std::string_view("\0", 1)) == R"("\u0000")");
}

TEST_CASE("DEL is escaped in the ascii style only") {
    CHECK(ascii("a\x7f") == R"("a\u007f")");
    CHECK(utf8("a\x7f") == "\"a\x7f\"");
}

TEST_CASE("non-ASCII: UTF-16 escapes in the ascii style, bytes as they are in utf8") {
    // U+00E9, U+07FF, U+20AC, U+FFFF, U+1F600, U+10FFFF.
    CHECK(ascii("caf\xc3\xa9") == R"("caf\u00e9")");
    CHECK(ascii("\xdf\xbf") == R"("\u07ff")");
    CHECK(ascii("\xe2\x82\xac") == R"("\u20ac")");
    CHECK(ascii("\xef\xbf\xbf") == R"("\uffff")");
    CHECK(ascii("\xf0\x9f\x98\x80") == R"("\ud83d\ude00")");
    CHECK(ascii("\xf4\x8f\xbf\xbf") == R"("\udbff\udfff")");
    CHECK(ascii("\xe6\xb3\xa8\xe6\x84\x8f-QK") == R"("\u6ce8\u610f-QK")");  // 注意-QK
    CHECK(utf8("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
    CHECK(utf8("\xf0\x9f\x98\x80\"\xe2\x82\xac") == "\"\xf0\x9f\x98\x80\\\"\xe2\x82\xac\"");
    CHECK(utf8("\xf4\x8f\xbf\xbf") == "\"\xf4\x8f\xbf\xbf\"");
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, one per maximal invalid subpart") {
    struct sample {
        std::string_view in, ascii, utf8;
    };
    const sample samples[] = {
        {"\x80", R"("\ufffd")", "\"\xef\xbf\xbd\""},                      // a stray continuation byte
        {"a\xff" "b", R"("a\ufffdb")", "\"a\xef\xbf\xbd" "b\""},          // never valid
        {"\xf5", R"("\ufffd")", "\"\xef\xbf\xbd\""},                      // a lead past U+10FFFF
        {"\xc2", R"("\ufffd")", "\"\xef\xbf\xbd\""},                      // truncated at the end
        {"\xe2\x82", R"("\ufffd")", "\"\xef\xbf\xbd\""},                  // truncated: one subpart
        {"\xe2\x82x", R"("\ufffdx")", "\"\xef\xbf\xbdx\""},               // cut by an ASCII byte
        {"\xf0\x9f\x98", R"("\ufffd")", "\"\xef\xbf\xbd\""},              // a 4-byte sequence cut
        {"\xc0\xaf", R"("\ufffd\ufffd")", "\"\xef\xbf\xbd\xef\xbf\xbd\""},  // overlong '/'
        {"\xe0\x80\xaf", R"("\ufffd\ufffd\ufffd")", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},  // overlong
        {"\xed\xa0\x80", R"("\ufffd\ufffd\ufffd")", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},  // a surrogate
        {"\xf0\x80\x80\x80", R"("\ufffd\ufffd\ufffd\ufffd")",
         "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},  // overlong
        {"\xf4\x90\x80\x80", R"("\ufffd\ufffd\ufffd\ufffd")",
         "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},  // past U+10FFFF
        {"\xc3\xa9\xc3", R"("\u00e9\ufffd")", "\"\xc3\xa9\xef\xbf\xbd\""},  // valid, then cut
    };
    for (const sample& s : samples) {
        CAPTURE(s.in);
        CHECK(ascii(s.in) == s.ascii);
        CHECK(utf8(s.in) == s.utf8);
    }
}

TEST_CASE("appends to any output with push_back and append, after what it holds") {
    std::string out = "{\"name\": ";
    dfx::io::append_json_string(out, "S\xc3\xa9q\t1", json_string_style::ascii);
    out += ", ";
    dfx::io::append_json_string(out, "S\xc3\xa9q\t1", json_string_style::utf8);
    CHECK(out == "{\"name\": \"S\\u00e9q\\t1\", \"S\xc3\xa9q\\t1\"");
}

TEST_CASE("html_script: the ascii style with '<' '>' '&' escaped as well") {
    const auto script = [](std::string_view s) { return dfx::io::json_string(s, json_string_style::html_script); };
    CHECK(script("a\xc2\xb7" "b</script>&x") == R"("a\u00b7b\u003c/script\u003e\u0026x")");
    CHECK(script("\t\x7f\"\\") == R"("\t\u007f\"\\")");
    CHECK(script("\xff") == R"("\ufffd")");
    CHECK(ascii("</script>&") == "\"</script>&\"");  // the other styles leave them
    CHECK(utf8("</script>&") == "\"</script>&\"");
}
