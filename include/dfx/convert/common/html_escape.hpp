// html_escape: text made safe inside HTML (and Graphviz HTML-like labels),
// both in element content and in double-quoted attribute values.
#pragma once

#include <string>
#include <string_view>

namespace dfx::convert {

inline std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace dfx::convert
