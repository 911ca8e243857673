// Fuzz target: the chip_swimlane_records.json that dfx deps reads beside
// deps.json for each task's core type (deps::read_perf_sidecar): the records'
// one reader (records_reader), checked and leniently, then the join on
// (core_id, reg_task_id) that decides which tasks read_perf_data returns.
// The text view's two reads of the same join, its ids in memory
// (read_perf_sidecar_ids) and through sorters that spill every few records
// (read_perf_sidecar_ids_sorted), must agree: the same verdict and message,
// the same set of ids. It shares the records seeds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dfx/convert/deps/perf_sidecar.hpp"
#include "fuzz_support.hpp"

namespace deps = dfx::convert::deps;

namespace {

// The distinct ids, or the error message.
template <class Read>
std::pair<std::vector<std::uint64_t>, std::string> ids_of(const std::string& path, Read&& read) {
    try {
        std::vector<std::uint64_t> ids = read();
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        return {ids, ""};
    } catch (const dfx::convert::input_error& e) {
        dfx::fuzz::expect_contract(e, path);
        return {{}, e.what()};
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("chip_swimlane_records.json");
    const std::string& path = file.write(data, size);
    for (const bool lenient : {false, true}) {
        dfx::fuzz::expect_input_error_only(path, [&] { (void)deps::read_perf_sidecar(path, lenient); });
        const auto in_memory = ids_of(path, [&] { return deps::read_perf_sidecar_ids(path, lenient); });
        const auto streamed = ids_of(path, [&] {
            deps::sidecar_task_ids sorted = deps::read_perf_sidecar_ids_sorted(path, lenient, 64);
            std::vector<std::uint64_t> ids;
            while (const std::uint64_t* id = sorted.next()) ids.push_back(*id);
            return ids;
        });
        if (in_memory != streamed) {
            std::fprintf(stderr, "perf sidecar: the sorted read disagrees (lenient %d): %zu / %zu ids, \"%s\" / \"%s\"\n", lenient,
                         in_memory.first.size(), streamed.first.size(), in_memory.second.c_str(), streamed.second.c_str());
            std::abort();
        }
    }
    return 0;
}
