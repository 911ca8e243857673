// fail_if: `dfx compare --fail-if EXPR`, a gate a CI job can put on a
// compare (docs/converters.md, "dfx compare"). EXPR is MEASURE OP VALUE:
//
//   MEASURE  a row's measure name ("makespan", "kernel:matmul.p50",
//            "ring:2.task_window", ...), or a glob over them with * ("kernel:*.p50")
//   OP       >  >=  <  <=
//   VALUE    +5%  -3%     relative change of B against A, in percent ((B - A) / |A|)
//            +20us -2     absolute change B - A, in the measure's unit
//            1500us  64   B's own value
//            the unit suffix is optional; us, ms and s on "us" measures,
//            pt (percentage points) on "%" measures
//
//   const fail_condition c = parse_fail_if("makespan>+5%");   // throws fail_if_error
//   const auto verdicts = evaluate(c, rows);                  // throws fail_if_error: unknown measure
//
// A measure a side cannot give (its artefact is missing) violates the
// condition (the gate cannot vouch for it) with the reason; a relative
// change against an A of 0 does too.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/compare/compare_table.hpp"

namespace dfx::convert::compare {

// A malformed expression or an unknown measure: the caller names the flag.
class fail_if_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class fail_kind { relative, delta, value };

struct fail_condition {
    std::string text;     // as given
    std::string measure;  // may hold *
    bool greater = true;  // > / >=, else < / <=
    bool or_equal = false;
    fail_kind kind = fail_kind::value;
    double value = 0.0;   // percent for relative, else in the measure's unit (after the suffix)
    std::string suffix;   // "", "%", "us", "ms", "s", "pt"
    std::string value_text;  // as given, for the messages
};

struct fail_verdict {
    std::string section, measure;
    bool violated = false;
    std::string why;  // "makespan +7.3% > +5%" or "absent: A: no ..."
};

inline bool glob_match(std::string_view pattern, std::string_view s) {
    std::size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
    while (i < s.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = i;
        } else if (p < pattern.size() && pattern[p] == s[i]) {
            ++p;
            ++i;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            i = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

inline fail_condition parse_fail_if(const std::string& text) {
    const auto bad = [&](const std::string& why) {
        return fail_if_error(fmt::format("'{}': {} (expected MEASURE OP VALUE, e.g. makespan>+5%)", text, why));
    };
    fail_condition c;
    c.text = text;
    // The operator is the last < or >: a kernel name may hold either, a value never does.
    const std::size_t op = text.find_last_of("<>");
    if (op == std::string::npos) throw bad("no comparison operator (> >= < <=)");
    c.greater = text[op] == '>';
    std::size_t v = op + 1;
    if (v < text.size() && text[v] == '=') {
        c.or_equal = true;
        ++v;
    }
    c.measure = text.substr(0, op);
    while (!c.measure.empty() && c.measure.back() == ' ') c.measure.pop_back();
    while (!c.measure.empty() && c.measure.front() == ' ') c.measure.erase(0, 1);
    if (c.measure.empty()) throw bad("no measure before the operator");
    std::string value = text.substr(v);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    if (value.empty()) throw bad("no value after the operator");
    const bool signed_value = value[0] == '+' || value[0] == '-';
    // The number, then the suffix.
    std::size_t end = signed_value ? 1 : 0;
    while (end < value.size() && (std::isdigit(static_cast<unsigned char>(value[end])) || value[end] == '.')) ++end;
    const std::string number = value.substr(0, end), suffix = value.substr(end);
    errno = 0;
    char* stop = nullptr;
    c.value = std::strtod(number.c_str(), &stop);
    if (number.empty() || stop != number.c_str() + number.size() || errno != 0 || !std::isfinite(c.value) ||
        number == "+" || number == "-")
        throw bad(fmt::format("'{}' is not a number", value));
    if (suffix != "" && suffix != "%" && suffix != "us" && suffix != "ms" && suffix != "s" && suffix != "pt")
        throw bad(fmt::format("unknown unit '{}' (use %, us, ms, s or pt)", suffix));
    c.suffix = suffix;
    c.value_text = value;
    if (suffix == "%") {
        c.kind = fail_kind::relative;
    } else {
        c.kind = signed_value ? fail_kind::delta : fail_kind::value;
        if (suffix == "ms") c.value *= 1e3;
        if (suffix == "s") c.value *= 1e6;
    }
    return c;
}

namespace detail {

inline std::string signed_text(double v) { return fmt::format("{:+.4g}", v); }
// "us" and "%" stick to the number, a word unit does not ("96 slots").
inline std::string unit_suffix(const std::string& unit) {
    if (unit.empty() || unit == "us" || unit == "%" || unit == "pt") return unit;
    return " " + unit;
}

}  // namespace detail

// The condition on every row it names. Throws fail_if_error when it names
// none, or when its unit does not fit a row's.
inline std::vector<fail_verdict> evaluate(const fail_condition& c, const std::vector<compare_row>& rows) {
    std::vector<fail_verdict> out;
    const char* op = c.greater ? (c.or_equal ? ">=" : ">") : (c.or_equal ? "<=" : "<");
    // A family with no rows on either side ("ring:*", "pmu:*": the artefact is
    // missing) has one placeholder row: a condition in that family lands on it.
    const auto names = [&](const compare_row& r) {
        const bool placeholder = r.measure.size() > 2 && r.measure.compare(r.measure.size() - 2, 2, ":*") == 0;
        if (!placeholder) return glob_match(c.measure, r.measure);
        return c.measure.compare(0, r.measure.size() - 1, r.measure, 0, r.measure.size() - 1) == 0;
    };
    for (const compare_row& r : rows) {
        if (!names(r)) continue;
        const bool time_suffix = c.suffix == "us" || c.suffix == "ms" || c.suffix == "s";
        if ((time_suffix && r.unit != "us") || (c.suffix == "pt" && r.unit != "%")) {
            throw fail_if_error(fmt::format("'{}': {} is in {}, not {}", c.text, r.measure, r.unit.empty() ? "no unit" : r.unit,
                                            c.suffix));
        }
        fail_verdict v{r.section, r.measure, false, {}};
        const std::string where = r.section == "." ? r.measure : r.section + " " + r.measure;
        std::optional<double> x;
        std::string shown;
        if (c.kind == fail_kind::value) {
            if (r.b) {
                x = *r.b;
                shown = fmt::format("{:.4g}{}", *x, detail::unit_suffix(r.unit));
            }
        } else if (r.both()) {
            if (c.kind == fail_kind::delta) {
                x = *r.b - *r.a;
                shown = detail::signed_text(*x) + detail::unit_suffix(r.unit == "%" ? "pt" : r.unit);
            } else if (*r.a != 0) {
                x = (*r.b - *r.a) / std::fabs(*r.a) * 100;
                shown = detail::signed_text(*x) + "%";
            }
        }
        if (!x) {
            v.violated = true;
            v.why = fmt::format("{}: cannot be checked: {}", where,
                                r.absent.empty() ? std::string("A is 0, a relative change has no meaning") : r.absent);
        } else {
            const double limit = c.value;
            v.violated = c.greater ? (c.or_equal ? *x >= limit : *x > limit) : (c.or_equal ? *x <= limit : *x < limit);
            v.why = fmt::format("{} {} {} {}", where, shown, op, c.value_text);
        }
        out.push_back(std::move(v));
    }
    if (out.empty()) {
        throw fail_if_error(fmt::format(
            "'{}': no measure '{}' in either run (measures: makespan, critical_path, utilisation, head.p50, tail.p90, "
            "kernel:NAME.p50, kernel:NAME.latency_p90, ring:R.task_window, pmu:NAME.CORE.PIPE, graph.tasks_added, ...; "
            "* matches any text)",
            c.text, c.measure));
    }
    return out;
}

}  // namespace dfx::convert::compare
