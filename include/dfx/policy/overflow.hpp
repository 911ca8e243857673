// What a producer does when every buffer it owns is full.
//
//   block<BackstopMs>  park until the host frees a buffer (the default); after
//                      the backstop timeout the records are dropped and counted,
//                      so a dead host cannot hang the device forever
//   drop               count the record as dropped and go on
//
// Either way `collected + dropped == produced` holds per producer.
#pragma once

#include <chrono>
#include <cstdint>

namespace dfx {

inline constexpr std::uint32_t default_backstop_ms = 30'000;

template <std::uint32_t BackstopMs = default_backstop_ms>
struct block {
    static_assert(BackstopMs > 0, "dfx::block: the backstop timeout must be > 0 ms");

    static constexpr bool blocks = true;
    static constexpr std::chrono::milliseconds backstop{BackstopMs};
};

struct drop {
    static constexpr bool blocks = false;
};

}  // namespace dfx
