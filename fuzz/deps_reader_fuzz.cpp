// Fuzz target: deps.json through its one reader (deps_reader.hpp), as every
// command reads it: read_deps into a deps_document (dfx deps /
// critical-path) and load_deps_graph into the swimlane's maps (dfx swimlane:
// deps_policy::optional; dfx sched-overhead: deps_policy::required), checked
// and leniently.
//
// What must hold:
//  - read_deps (whatever it does inside: stream, pipeline) agrees (verdict,
//    message, counts) with a plain sequential json_object_stream run of its
//    handler;
//  - the detailed read (details and geometry on: the HTML page and the
//    dataflow edge modes parse the per-edge tensor annotations and task args
//    the plain read skips) reaches the same verdict and document with 64 KiB
//    blocks (one block for any input up to -max_len) and with 5-byte blocks:
//    the scanner is a push state machine;
//  - checked, the swimlane's read fails exactly when read_deps does, with the
//    same message (one reader, one set of checks), and its edge index agrees
//    with its edge list.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "fuzz_support.hpp"

namespace deps = dfx::convert::deps;
namespace sw = dfx::convert::swimlane;

namespace {

struct outline {  // what must not depend on how the file is read
    bool ok = false;
    std::string error;
    std::size_t edges = 0, tasks = 0, tensors = 0, dropped = 0;
    bool operator==(const outline&) const = default;
};

template <class Read>
outline outline_of(const std::string& path, Read&& read) {
    outline o;
    try {
        const deps::deps_document doc = read();
        o.ok = true;
        o.edges = doc.edges.size();
        o.tasks = doc.tasks.size();
        o.tensors = doc.tensors.size();
        o.dropped = doc.dropped_edges;
    } catch (const dfx::convert::input_error& e) {
        dfx::fuzz::expect_contract(e, path);
        o.error = e.what();
    }
    return o;
}

outline sequential(const std::string& path, std::size_t block, deps::deps_load_options opt) {
    return outline_of(path, [&] {
        deps::deps_document doc;
        deps::detail::document_sink sink(doc, opt);
        deps::detail::deps_handler handler(path, sink, opt);  // read_deps' own handler
        dfx::convert::json_object_stream(path, false, block).run(handler);
        deps::detail::require_edges(path, handler.summary, opt);
        doc.dropped_edges = handler.summary.dropped_edges;
        return doc;
    });
}

void expect_same(const outline& a, const outline& b, const char* what) {
    if (a == b) return;
    std::fprintf(stderr, "deps reader: %s disagree: ok %d/%d, edges %zu/%zu, tasks %zu/%zu, error \"%s\" / \"%s\"\n", what,
                 a.ok, b.ok, a.edges, b.edges, a.tasks, b.tasks, a.error.c_str(), b.error.c_str());
    std::abort();
}

// The swimlane's read: "" when it succeeded, else its message.
std::string swimlane_read(const std::string& path, sw::deps_policy policy, bool lenient) {
    try {
        const sw::deps_graph g = sw::load_deps_graph(path, dfx::fuzz::dev_null(), policy, lenient);
        // The index must agree with the edge list it was built from.
        for (const auto& e : g.edges) {
            const auto [first, last] = g.succs(e.pred);
            if (first == nullptr || first == last) std::abort();
        }
        return "";
    } catch (const dfx::convert::input_error& e) {
        dfx::fuzz::expect_contract(e, path);
        return e.what();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("deps.json");
    const std::string& path = file.write(data, size);
    constexpr std::size_t one_block = std::size_t{64} << 10;

    const outline checked = outline_of(path, [&] { return deps::read_deps(path); });
    expect_same(checked, sequential(path, one_block, {}), "read_deps and a sequential stream run");
    const deps::deps_load_options full{.details = true, .geometry = true};
    expect_same(sequential(path, one_block, full), sequential(path, 5, full), "64 KiB and 5-byte blocks");
    for (const deps::deps_dialect dialect : {deps::deps_dialect::viewer, deps::deps_dialect::swimlane})
        (void)outline_of(path, [&] { return deps::read_deps(path, {.lenient = true, .dialect = dialect}); });

    for (const sw::deps_policy policy : {sw::deps_policy::optional, sw::deps_policy::required}) {
        const std::string error = swimlane_read(path, policy, false);
        if (error != checked.error) {
            std::fprintf(stderr, "deps reader: dfx deps and the swimlane disagree: \"%s\" / \"%s\"\n", checked.error.c_str(),
                         error.c_str());
            std::abort();
        }
        (void)swimlane_read(path, policy, true);
    }
    return 0;
}
