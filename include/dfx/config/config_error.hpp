// The one exception type every configuration error raises. Its message names
// the field, the value and what is accepted, so a user can fix the flag
// without reading code.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace dfx {

class config_error : public std::invalid_argument {
public:
    config_error(std::string field, const std::string& message)
        : std::invalid_argument(field + ": " + message), field_(std::move(field)) {}

    const std::string& field() const noexcept { return field_; }

private:
    std::string field_;
};

}  // namespace dfx
