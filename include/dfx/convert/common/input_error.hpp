// input_error: the one exception type the converters throw for bad input.
//
// A file that is missing, unreadable, not valid JSON/CSV or not in the expected
// schema is a user problem, not a program bug: the CLI prints the message as a
// single line and exits non-zero. The message therefore has to be complete on
// its own: it names the file and says what is wrong (and where, when known).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace dfx::convert {

class input_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A key (or any text) taken from the input, as it may appear in a one-line
// message: control characters (a "\n" escape in the file is a real newline
// once unescaped) written as \xNN, everything else as it is.
inline std::string printable_json_key(std::string_view key) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(key.size());
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) out.append({'\\', 'x', hex[u >> 4], hex[u & 0xF]});
        else out.push_back(c);
    }
    return out;
}

}  // namespace dfx::convert
