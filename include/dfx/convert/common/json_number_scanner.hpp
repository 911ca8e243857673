// json_number_scanner: the JSON number grammar, one byte at a time, resumable
// across blocks. One concern: it knows nothing of where the number sits.
//
//   json_number_scanner num;
//   num.begin(first_byte);                     // '-' or a digit (the caller checked)
//   while (num.step(next_byte)) { ... }        // true: the byte belongs to the number
//   if (!num.complete()) error("malformed number");   // the byte that ended it does not
//
// Grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
#pragma once

namespace dfx::convert {

class json_number_scanner {
public:
    static constexpr bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

    // c starts a number: '-' or a digit.
    void begin(unsigned char c) { st_ = c == '-' ? minus : c == '0' ? zero : integer; }

    // In a run of digits where any further digit is taken as it is: the
    // caller may skip such a run in a tight loop before stepping again.
    [[nodiscard]] bool in_digit_run() const { return st_ == integer || st_ == fraction || st_ == exponent; }

    // Takes c if it continues the number; false leaves the state as it was.
    bool step(unsigned char c) {
        switch (st_) {
        case minus:
            if (c == '0') return to(zero);
            if (is_digit(c)) return to(integer);
            return false;
        case zero:
        case integer:
            if (st_ == integer && is_digit(c)) return true;
            if (c == '.') return to(dot);
            if (c == 'e' || c == 'E') return to(e);
            return false;
        case dot:
            return is_digit(c) && to(fraction);
        case fraction:
            if (is_digit(c)) return true;
            if (c == 'e' || c == 'E') return to(e);
            return false;
        case e:
            if (c == '+' || c == '-') return to(exponent_sign);
            return is_digit(c) && to(exponent);
        case exponent_sign:
            return is_digit(c) && to(exponent);
        case exponent:
            return is_digit(c);
        }
        return false;
    }

    // The bytes taken so far form a whole number.
    [[nodiscard]] bool complete() const { return st_ == zero || st_ == integer || st_ == fraction || st_ == exponent; }

private:
    enum state : unsigned char { minus, zero, integer, dot, fraction, e, exponent_sign, exponent };
    bool to(state s) {
        st_ = s;
        return true;
    }
    state st_ = integer;
};

}  // namespace dfx::convert
