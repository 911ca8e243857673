#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "dfx/transport/accounting.hpp"

namespace {

std::string written(const std::vector<dfx::channel_report>& reports, bool* ok) {
    char buffer[4096] = {};
    std::FILE* f = fmemopen(buffer, sizeof buffer - 1, "w");
    *ok = dfx::write_accounting(f, "chip swimlane", reports);
    std::fclose(f);
    return buffer;
}

dfx::channel_report report(const char* name, std::uint32_t id, dfx::producer_state state, std::uint64_t produced,
                           std::uint64_t collected, std::uint64_t dropped) {
    dfx::channel_report r;
    r.name = name;
    r.producer_id = id;
    r.state = state;
    r.produced = produced;
    r.collected = collected;
    r.dropped = dropped;
    return r;
}

}  // namespace

TEST_CASE("a clean run prints one total line") {
    bool ok = false;
    const auto text = written({report("aicore", 0, dfx::producer_state::exited, 10, 10, 0),
                               report("aicore", 1, dfx::producer_state::exited, 5, 5, 0)},
                              &ok);
    CHECK(ok);
    CHECK(text == "chip swimlane: 15 records produced, 15 collected, 0 dropped\n");
}

TEST_CASE("every drop is shown, with the backstop named when it fired") {
    bool ok = false;
    auto stalled = report("aicpu", 2, dfx::producer_state::exited, 100, 60, 40);
    stalled.backstops = 1;
    const auto text = written({report("aicore", 0, dfx::producer_state::exited, 10, 7, 3), stalled}, &ok);
    CHECK(ok);
    CHECK(text ==
          "chip swimlane: 110 records produced, 67 collected, 43 dropped\n"
          "  DROPPED 3 of 10 records in aicore (producer 0)\n"
          "  DROPPED 40 of 100 records in aicpu (producer 2): the host stopped taking buffers and the "
          "backstop fired\n");
}

TEST_CASE("an unfinished producer's records are shown as lost; a mismatch after exit is a bug") {
    bool ok = true;
    const auto text = written({report("phases", 1, dfx::producer_state::running, 100, 64, 0),
                               report("orch", 0, dfx::producer_state::exited, 10, 9, 0)},
                              &ok);
    CHECK_FALSE(ok);
    CHECK(text.find("LOST 36 records in phases (producer 1): the producer never finished") != std::string::npos);
    CHECK(text.find("BUG: orch (producer 0): collected 9 + dropped 0 != produced 10") != std::string::npos);
    CHECK(dfx::totals({report("x", 0, dfx::producer_state::exited, 3, 1, 1)}).unbalanced_channels == 1);
}
