// Fuzz target: deps.json as dfx deps / critical-path read it (read_deps).
//
// read_deps is the entry point (whatever it does inside: stream, pipeline);
// its verdict, error message and document must match a plain sequential
// json_object_stream run of the same handler. The detailed read (details and
// geometry on: the HTML page and the dataflow edge modes parse the per-edge
// tensor annotations and task args the plain read skips) runs with 64 KiB
// blocks (one block for any input up to -max_len) and with 5-byte blocks: the
// scanner is a push state machine that must reach the same verdict and the
// same document whatever the block boundaries.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "fuzz_support.hpp"

namespace deps = dfx::convert::deps;

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
        deps::detail::deps_handler handler(path, doc, opt);  // read_deps' own handler
        dfx::convert::json_object_stream(path, false, block).run(handler);
        return doc;
    });
}

void expect_same(const outline& a, const outline& b, const char* what) {
    if (a == b) return;
    std::fprintf(stderr, "deps reader: %s disagree: ok %d/%d, edges %zu/%zu, tasks %zu/%zu, error \"%s\" / \"%s\"\n", what,
                 a.ok, b.ok, a.edges, b.edges, a.tasks, b.tasks, a.error.c_str(), b.error.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("deps.json");
    const std::string& path = file.write(data, size);
    constexpr std::size_t one_block = std::size_t{64} << 10;

    expect_same(outline_of(path, [&] { return deps::read_deps(path); }), sequential(path, one_block, {}),
                "read_deps and a sequential stream run");
    const deps::deps_load_options full{.details = true, .geometry = true};
    expect_same(sequential(path, one_block, full), sequential(path, 5, full), "64 KiB and 5-byte blocks");
    return 0;
}
