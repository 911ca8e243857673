// Fuzz target: name_map*.json through its one reader (read_name_map_file)
// and each consumer's interpretation: the deps viewer's
// (deps::load_name_map: dfx deps / critical-path / pmu) and the swimlane
// converter's (swimlane::load_name_map).
//
// Checked (the default), only input_error may come out, and both consumers
// must reach the same verdict with the same message: one reader, one set of
// checks. Leniently (the viewer's --lenient) a bad name map is a warning on
// stderr and an empty map, never an error (names only decorate the output):
// any exception at all is a finding there, input_error included. The warning
// goes to stderr by design; the meson test runs this target with
// -close_fd_mask=2 to keep the log readable (libFuzzer and the sanitizers
// still report on their own copy of stderr).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "fuzz_support.hpp"

namespace conv = dfx::convert;

namespace {

// "ok", or the input_error's message (checked against the contract); any
// other exception escapes: a finding.
template <class Read>
std::string verdict_of(const std::string& path, Read&& read) {
    try {
        read();
        return "ok";
    } catch (const conv::input_error& e) {
        dfx::fuzz::expect_contract(e, path);
        return e.what();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("name_map_fuzz.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] {
        (void)conv::read_name_map_file(path, conv::name_map_checks::grammar);
    });
    const std::string viewer = verdict_of(path, [&] { (void)conv::deps::load_name_map(path); });
    const std::string swimlane = verdict_of(path, [&] {
        const conv::swimlane::name_map m = conv::swimlane::load_name_map(path);
        for (std::int64_t id = -1; id < 4; ++id) (void)m.find(id);
    });
    if (viewer != swimlane) {
        std::fprintf(stderr, "name map: the consumers disagree: viewer \"%s\", swimlane \"%s\"\n", viewer.c_str(),
                     swimlane.c_str());
        std::abort();
    }
    const conv::deps::name_map m = conv::deps::load_name_map(path, /*lenient=*/true);
    // The lookups the viewers make, over the ids a small graph has.
    for (std::int64_t id = -1; id < 4; ++id) (void)m.name_or_fallback(id);
    return 0;
}
