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
//    with its edge list;
//  - `dfx deps`' text view of the full graph, streamed through sorters that
//    spill every few records (deps_text_streamed.hpp), is byte for byte the
//    view of the graph held in memory, checked and leniently.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/deps_text_streamed.hpp"
#include "dfx/convert/deps/edge_modes.hpp"
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

// What `write(out)` writes to `path`.txt.
template <class Write>
std::string written(const std::string& path, Write&& write) {
    const std::string out_path = path + ".txt";
    {
        dfx::convert::json_file_writer out(out_path);
        write(out);
        out.commit();
    }
    std::string text;
    if (std::FILE* f = std::fopen(out_path.c_str(), "rb")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
    }
    std::remove(out_path.c_str());
    return text;
}

// The text view both ways, when deps.json reads; they must be the same bytes.
void expect_same_text_views(const std::string& path, bool lenient) {
    const deps::deps_load_options opt{.lenient = lenient};
    std::string in_memory;
    try {
        deps::deps_graph g = deps::start_graph(deps::read_deps(path, opt));
        deps::finish_graph_lean(g, {}, nullptr);
        const deps::edge_selection sel = deps::select_edges(g, deps::edge_mode::full);
        in_memory = written(path, [&](dfx::convert::json_file_writer& out) { deps::write_deps_text(out, g, sel, "deps.json", 3); });
    } catch (const dfx::convert::input_error&) {
        return;  // (the reads above have checked the verdict)
    }
    deps::text_spill spill(64);  // a record or two a run
    (void)deps::read_deps(path, spill, opt);
    deps::text_view_files view(spill, {}, nullptr);
    const std::string streamed =
        written(path, [&](dfx::convert::json_file_writer& out) { deps::write_deps_text(out, view.summary, view.fmt, "deps.json", view, 3); });
    if (streamed != in_memory) {
        std::fprintf(stderr, "deps reader: the streamed text view differs from the in-memory one (lenient %d)\n", lenient);
        std::abort();
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
    for (const bool lenient : {false, true}) expect_same_text_views(path, lenient);
    return 0;
}
