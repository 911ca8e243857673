// Fuzz target: merged_swimlane*.json as dfx critical-path reads it
// (deps::write_cpm_traces): a Perfetto trace, an object with traceEvents or a
// bare array of events, streamed twice; the Worker View bars off the path are
// renamed in two copies written beside it.
//
// The path is empty, so every Worker View bar (ph "X", pid 4, args.taskId) is
// off it and goes through the renaming writer; no task can be "missing".
#include <cstdio>

#include "dfx/convert/deps/critical_path.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("merged_swimlane.json");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] {
        const dfx::convert::deps::cp_result none;
        for (const std::string& out : dfx::convert::deps::write_cpm_traces(path, file.dir(), none))
            std::remove(out.c_str());
    });
    return 0;
}
