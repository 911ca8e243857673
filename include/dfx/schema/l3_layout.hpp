// The L3 layout (several chips): every dispatch writes its artefacts into its
// own directory <prefix>/rank<r>/d<k>/ (r the chip, k the dispatch's index on
// that chip, from 0), beside a dispatch_program.json naming the program that
// ran there ({"program": "<name>"}), because func ids restart in every
// program and the dispatch's name map resolves them through it.
//
//   const auto dir = base / dfx::schema::rank_dir_name(r) / dfx::schema::dispatch_dir_name(k);   // the simulator
//   if (dfx::schema::is_rank_dir_name(name)) ...  dfx::schema::dispatch_index(name) ...          // dfx all
//
// The artefacts inside each dispatch directory have the names of
// schema/artefact_names.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dfx::schema {

inline constexpr std::string_view rank_dir_prefix = "rank";
inline constexpr std::string_view dispatch_dir_prefix = "d";
inline constexpr std::string_view dispatch_program_file = "dispatch_program.json";
// The member of dispatch_program.json that names the program.
inline constexpr std::string_view dispatch_program_key = "program";

namespace detail {
// The decimal number after `prefix` in `name` (digits only, at least one, no
// overflow of 32 bits), or nullopt.
constexpr std::optional<std::uint32_t> numbered(std::string_view name, std::string_view prefix) noexcept {
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::uint64_t n = 0;
    for (const char c : name.substr(prefix.size())) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<std::uint64_t>(c - '0');
        if (n > UINT32_MAX) return std::nullopt;
    }
    return static_cast<std::uint32_t>(n);
}
}  // namespace detail

// "rank3" -> 3; nullopt for anything else ("rank", "rankx", "d0").
constexpr std::optional<std::uint32_t> rank_index(std::string_view dir_name) noexcept {
    return detail::numbered(dir_name, rank_dir_prefix);
}
// "d12" -> 12; nullopt for anything else ("d", "d1x", "rank0").
constexpr std::optional<std::uint32_t> dispatch_index(std::string_view dir_name) noexcept {
    return detail::numbered(dir_name, dispatch_dir_prefix);
}
constexpr bool is_rank_dir_name(std::string_view dir_name) noexcept { return rank_index(dir_name).has_value(); }
constexpr bool is_dispatch_dir_name(std::string_view dir_name) noexcept { return dispatch_index(dir_name).has_value(); }

inline std::string rank_dir_name(std::uint32_t rank) { return std::string(rank_dir_prefix) + std::to_string(rank); }
inline std::string dispatch_dir_name(std::uint32_t index) { return std::string(dispatch_dir_prefix) + std::to_string(index); }

static_assert(rank_index("rank0") == 0u && rank_index("rank17") == 17u && !rank_index("rank") && !rank_index("rank1a"));
static_assert(dispatch_index("d3") == 3u && !dispatch_index("d") && !dispatch_index("d3x") && !dispatch_index("rank3"));
static_assert(!dispatch_index("d99999999999"));

}  // namespace dfx::schema
