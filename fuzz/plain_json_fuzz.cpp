// Fuzz target: plain_json against simdjson On-Demand (the handlers of deps.json
// and of the swimlane-records sidecar are templates over the two).
//
// The input is read by json_object_stream as a top-level object or array;
// every member value and element it delivers that is_plain_json accepts must
// render the same through plain_value as through simdjson (describe(): the
// structure, and every scalar as text and as each py_json reader reads it). simdjson failing on
// such an element is a finding too: the stream validated it.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../tests/support/json_describe.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/plain_json.hpp"
#include "fuzz_support.hpp"

namespace cv = dfx::convert;

namespace {

class differential final : public cv::json_member_handler {
public:
    cv::member_use use(std::string_view) override { return cv::member_use::elements; }
    void value(std::string_view, simdjson::padded_string_view json) override { compare(json); }
    void element(std::string_view, std::size_t, simdjson::padded_string_view json) override { compare(json); }

private:
    void compare(simdjson::padded_string_view json) {
        if (!cv::is_plain_json(json)) return;
        // Wrapped in [ ]: On-Demand reads a scalar only inside a document.
        const std::string wrapped = "[" + std::string(std::string_view(json)) + "]";
        const simdjson::padded_string padded(wrapped);
        for (const dfx::test::read_with how : dfx::test::all_reads) {
            std::string expected;
            try {
                auto doc = parser_.iterate(padded);
                simdjson::ondemand::value v = doc.get_value();
                expected = dfx::test::describe(v, how);
            } catch (const simdjson::simdjson_error& e) {
                if (e.error() == simdjson::DEPTH_ERROR) return;  // simdjson's own nesting limit
                std::fprintf(stderr, "simdjson rejects a validated plain element: %s\n%s\n", e.what(), wrapped.c_str());
                std::abort();
            }
            const std::string got = dfx::test::describe(cv::plain_value(wrapped), how);
            if (got != expected) {
                std::fprintf(stderr, "plain_value differs from simdjson on\n%s\nplain:    %s\nsimdjson: %s\n", wrapped.c_str(),
                             got.c_str(), expected.c_str());
                std::abort();
            }
        }
    }
    simdjson::ondemand::parser parser_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("plain.json");
    differential d;
    try {
        cv::json_object_stream(file.write(data, size), /*allow_top_array=*/true, 4096).run(d);
    } catch (const cv::input_error&) {
        // Not valid JSON: nothing was delivered past the error.
    }
    return 0;
}
