// Fuzz target: name_map*.json as dfx deps / critical-path / pmu read it
// (deps::load_name_map).
//
// Leniently (--lenient) a bad name map is a warning on stderr and an empty
// map, never an error (names only decorate the output): any exception at all
// is a finding there, input_error included. Checked (the default), only
// input_error may come out. The warning
// goes to stderr by design; the meson test runs this target with
// -close_fd_mask=2 to keep the log readable (libFuzzer and the sanitizers
// still report on their own copy of stderr).
#include "dfx/convert/deps/name_map.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("name_map_fuzz.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] { (void)dfx::convert::deps::load_name_map(path); });
    const dfx::convert::deps::name_map m = dfx::convert::deps::load_name_map(path, /*lenient=*/true);
    // The lookups the viewers make, over the ids a small graph has.
    for (std::int64_t id = -1; id < 4; ++id) (void)m.name_or_fallback(id);
    return 0;
}
