// input_error: the one exception type the converters throw for bad input.
//
// A file that is missing, unreadable, not valid JSON/CSV or not in the expected
// schema is a user problem, not a program bug: the CLI prints the message as a
// single line and exits non-zero. The message therefore has to be complete on
// its own: it names the file and says what is wrong (and where, when known).
#pragma once

#include <stdexcept>
#include <string>

namespace dfx::convert {

class input_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace dfx::convert
