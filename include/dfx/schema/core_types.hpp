// The two kinds of AICore, AIC (cube) and AIV (vector), as every artefact
// spells them: the number of pmu.csv's core_type column (0 AIC, 1 AIV) and
// the "aic" / "aiv" strings of the records file's core_types. The ready-queue
// depths of a scheduler phase add a third, MIX, as the last of [AIC, AIV, MIX].
//
//   layout.core_types.push_back(dfx::core_type::aiv);           // record/ names it dfx::core_type
//   out.raw(dfx::schema::core_type_name(type));                  // "aiv"
//   const auto t = dfx::schema::core_type_from_name("aic");     // nullopt for anything else
//
// On a CPU thread pool with one kind of worker, use aiv for every core (the
// reference reader's default, too).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dfx::schema {

enum class core_type : std::uint8_t { aic = 0, aiv = 1 };

inline constexpr std::string_view aic_name = "aic";
inline constexpr std::string_view aiv_name = "aiv";
// Only a queue-depth slot and a deps.json core_type, never a core's kind.
inline constexpr std::string_view mix_name = "mix";
// What a reader assumes for a core the records file does not list.
inline constexpr core_type default_core_type = core_type::aiv;

constexpr std::string_view core_type_name(core_type t) noexcept { return t == core_type::aic ? aic_name : aiv_name; }

constexpr std::optional<core_type> core_type_from_name(std::string_view name) noexcept {
    if (name == aic_name) return core_type::aic;
    if (name == aiv_name) return core_type::aiv;
    return std::nullopt;
}

// pmu.csv's core_type column: 0 or 1; nullopt for any other number.
constexpr std::optional<core_type> core_type_from_number(std::uint64_t n) noexcept {
    if (n == static_cast<std::uint64_t>(core_type::aic)) return core_type::aic;
    if (n == static_cast<std::uint64_t>(core_type::aiv)) return core_type::aiv;
    return std::nullopt;
}

static_assert(core_type_from_name(core_type_name(core_type::aic)) == core_type::aic);
static_assert(core_type_from_name(core_type_name(core_type::aiv)) == core_type::aiv);

}  // namespace dfx::schema
