// same_text: whether two texts hold the same bytes, for a hot path that
// compares short names (a category, an arg's, a counter's) tens of
// millions of times: the bytes compared in inline 8-byte words, not by a
// call to memcmp per name. (The protobuf trace's encoder and its recorders:
// about a tenth of the encoder's time had gone to those calls.)
//
//   if (same_text(kept_name, incoming)) ...   // sizes first, then the bytes
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace dfx::convert {

inline bool same_text(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    std::size_t n = a.size();
    for (; n >= 8; x += 8, y += 8, n -= 8) {
        std::uint64_t u = 0, v = 0;
        std::memcpy(&u, x, 8);
        std::memcpy(&v, y, 8);
        if (u != v) return false;
    }
    for (; n != 0; ++x, ++y, --n) {
        if (*x != *y) return false;
    }
    return true;
}

}  // namespace dfx::convert
