// py_format: number formatting that matches what the reference Python tools
// print, so text outputs compare line by line.
//
//   py_float_repr(x)   == repr(x) / str(x) for a Python float
//   py_format_g(x, p)  == format(x, f".{p}g")
//   py_list_repr(xs)   == str(list_of_ints)  -> "[16, 128]"
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace dfx::convert {

// Python's repr of a float: the shortest digits that round-trip, written in
// fixed notation when the decimal exponent is in [-4, 16), else scientific with
// at least two exponent digits; a fixed value always shows a fractional part.
inline std::string py_float_repr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    // Shortest round-trip digits, as d.ddde+XX.
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
    std::string out;
    if (!sci.empty() && sci.front() == '-') {
        out.push_back('-');
        sci.remove_prefix(1);
    }
    const std::size_t epos = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, epos))
        if (c != '.') digits.push_back(c);
    const int exp10 = std::atoi(std::string(sci.substr(epos + 1)).c_str());
    if (exp10 < -4 || exp10 >= 16) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char e[16];
        std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
        return out + e;
    }
    if (exp10 < 0) {
        out += "0." + std::string(static_cast<std::size_t>(-exp10 - 1), '0') + digits;
        return out;
    }
    const auto int_len = static_cast<std::size_t>(exp10) + 1;
    if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
    } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
    return out;
}

// format(v, ".{precision}g"). C's %g agrees with Python for finite values
// (both round correctly); Python prints NaN without a sign.
inline std::string py_format_g(double v, int precision) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    return buf;
}

template <class Int>
std::string py_list_repr(const std::vector<Int>& xs) {
    std::string out = "[";
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(xs[i]);
    }
    return out + "]";
}

}  // namespace dfx::convert
