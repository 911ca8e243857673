// Fuzz target: pmu.csv (pmu::read_pmu_csv), line by line against its header.
// The callbacks check what the reader promises the summary: every row has
// exactly one value per header counter.
#include <cstdlib>

#include "dfx/convert/pmu/pmu_csv.hpp"
#include "fuzz_support.hpp"

namespace pmu = dfx::convert::pmu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static dfx::fuzz::input_file file("pmu.csv");
    const std::string& path = file.write(data, size);
    dfx::fuzz::expect_input_error_only(path, [&] {
        std::size_t counters = 0;
        pmu::read_pmu_csv(
            path, [&](const std::vector<std::string>& names) { counters = names.size(); },
            [&](const pmu::pmu_row& row) {
                if (row.counters.size() != counters || row.core_type > 1) std::abort();
                (void)pmu::event_type_name(row.event_type);
            });
    });
    return 0;
}
