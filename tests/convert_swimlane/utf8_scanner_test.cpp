// utf8_scanner: the verdict and the offset it names must not depend on
// where the blocks split a sequence.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/utf8_scanner.hpp"

namespace {

// The text fed in blocks of `block` bytes: nullopt when valid, else the error.
std::optional<std::string> scan(const std::string& text, std::size_t block) {
    dfx::convert::utf8_scanner utf8("f.json");
    try {
        for (std::size_t at = 0; at < text.size(); at += block) {
            const std::string piece = text.substr(at, block);
            utf8.next(piece.data(), piece.size(), at);
        }
        utf8.finish();
    } catch (const dfx::convert::input_error& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("valid UTF-8 passes whatever the block size") {
    // 1-, 2-, 3- and 4-byte sequences, the edges of each range included.
    const std::string text = "{\"k\": \"a \xC2\x80 \xDF\xBF \xE0\xA0\x80 \xED\x9F\xBF \xEF\xBF\xBF \xF0\x90\x80\x80 \xF4\x8F\xBF\xBF \xE4\xB8\xAD\"}";
    for (std::size_t block = 1; block <= text.size(); ++block) {
        CAPTURE(block);
        CHECK(scan(text, block) == std::nullopt);
    }
}

TEST_CASE("invalid UTF-8 is named at its byte whatever the block size") {
    struct bad {
        std::string text;
        std::size_t at;
        const char* what;
    };
    const bad cases[] = {
        {"ab\x80z", 2, "a lone continuation byte"},
        {"ab\xC0\x80z", 2, "an overlong 2-byte NUL"},
        {"ab\xE0\x80\x80z", 2, "an overlong 3-byte sequence"},
        {"ab\xED\xA0\x80z", 2, "a surrogate"},
        {"ab\xF4\x90\x80\x80z", 2, "above U+10FFFF"},
        {"ab\xF5\x80\x80\x80z", 2, "a byte that never occurs"},
        {"ab\xE4\xB8z", 2, "a sequence cut by ASCII"},
        {"ab\xC3\xA9\xE4\xB8\xAD\xFFz", 7, "0xFF after valid sequences"},
    };
    for (const bad& b : cases) {
        for (std::size_t block = 1; block <= b.text.size(); ++block) {
            CAPTURE(b.what);
            CAPTURE(block);
            const auto error = scan(b.text, block);
            REQUIRE(error.has_value());
            CHECK(*error == "f.json: at byte " + std::to_string(b.at) + ": invalid UTF-8");
        }
    }
}

TEST_CASE("a sequence cut by the end of the file is an error") {
    const std::string text = "abc\xF0\x9F\x98";
    for (std::size_t block = 1; block <= text.size(); ++block) {
        CAPTURE(block);
        const auto error = scan(text, block);
        REQUIRE(error.has_value());
        CHECK(error->find("f.json: at byte 3: ") == 0);
    }
}
