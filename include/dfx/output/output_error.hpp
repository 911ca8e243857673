// The one exception type artefact writers raise (host side): its message
// names the file and what went wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace dfx {

class output_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace dfx
