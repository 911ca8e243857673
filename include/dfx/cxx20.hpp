// dfxkit needs C++20 (concepts, consteval, std::span, ...). Included first by
// every umbrella header (dfx/dfx.hpp, dfx/policy.hpp, ...), so a build with an
// older -std stops on one readable line instead of pages of template errors:
//
//   #include <dfx/policy.hpp>   // with -std=c++17: "dfxkit needs C++20 ..."
#pragma once

// MSVC keeps __cplusplus at 199711L unless /Zc:__cplusplus; _MSVC_LANG is right.
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define DFX_CPLUSPLUS _MSVC_LANG
#else
#define DFX_CPLUSPLUS __cplusplus
#endif

#if DFX_CPLUSPLUS < 202002L
#error "dfxkit needs C++20 or later: compile with -std=c++20 (or gnu++20, c++23, ...)"
#endif

#undef DFX_CPLUSPLUS
