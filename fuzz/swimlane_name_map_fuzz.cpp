// Fuzz target: name_map*.json as dfx swimlane reads it (swimlane::load_name_map):
// callable_id_to_name and orchestrator_name, read whole with simdjson.
// Unlike the deps reader's, a bad map is an error here (input_error).
#include "dfx/convert/swimlane/name_map.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("name_map_fuzz.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] {
        const dfx::convert::swimlane::name_map m = dfx::convert::swimlane::load_name_map(path);
        for (std::int64_t id = -1; id < 4; ++id) (void)m.find(id);
    });
    return 0;
}
