// The one exception type artefact writers raise (host side): its message
// names the file and what went wrong.
//
//   throw dfx::output_error(dfx::detail::message({"chip swimlane: level ", level, " expected"}));
//   dfx::detail::throw_output_error({path.string(), ": cannot create: ", ec.message()});
//
// Error messages are built by one out-of-line, cold function rather than by
// std::string operator+ chains: such a chain is inlined at every throw site,
// and on a host translation unit's error paths they were a large part of the
// code the compiler generates (docs/embedding.md, "One host translation unit").
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dfx {

class output_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {

// One piece of a message: text, or an integer written in decimal (as
// std::to_string writes it).
struct message_part {
    message_part(std::string_view t) noexcept : text(t) {}
    message_part(const char* t) noexcept : text(t) {}
    message_part(const std::string& t) noexcept : text(t) {}
    template <std::integral T>
        requires(!std::same_as<T, bool> && !std::same_as<T, char>)
    message_part(T v) noexcept : number(true), negative(v < 0) {
        if constexpr (std::signed_integral<T>)
            magnitude = v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
        else
            magnitude = v;
    }

    std::string_view text{};
    bool number = false;
    bool negative = false;
    std::uint64_t magnitude = 0;
};

[[gnu::cold, gnu::noinline]] inline std::string message(std::initializer_list<message_part> parts) {
    std::string out;
    for (const message_part& p : parts) {
        if (!p.number) {
            out.append(p.text);
            continue;
        }
        if (p.negative) out.push_back('-');
        out.append(std::to_string(p.magnitude));
    }
    return out;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void throw_output_error(std::initializer_list<message_part> parts) {
    throw output_error(message(parts));
}

}  // namespace detail

}  // namespace dfx
