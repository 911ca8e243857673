// Fuzz target: deps.json as the swimlane tools read it (load_deps_graph):
// edges, kernel ids and block counts, streamed with json_stream.
//
// Both policies run: `optional` (dfx swimlane: most problems become a warning
// and no arrows) and `required` (dfx sched-overhead: every problem is an
// error), since they take different paths out of the same reader.
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "fuzz_support.hpp"

namespace sw = dfx::convert::swimlane;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("deps.json");
    const std::string& path = file.write(data, size);
    for (const sw::deps_policy policy : {sw::deps_policy::optional, sw::deps_policy::required})
    for (const bool lenient : {false, true}) {
        dfx::fuzz::expect_input_error_only(path, [&] {
            const sw::deps_graph g = sw::load_deps_graph(path, dfx::fuzz::dev_null(), policy, lenient);
            // The index must agree with the edge list it was built from.
            for (const auto& e : g.edges) {
                const auto [first, last] = g.succs(e.pred);
                if (first == nullptr || first == last) std::abort();
            }
        });
    }
    return 0;
}
