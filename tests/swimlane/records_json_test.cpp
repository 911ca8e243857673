// chip_swimlane_records.json: our writer against the reference's files
// (byte for byte) and against the spec's example written out by hand.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <simdjson.h>

#include "dfx/output/chip_swimlane_json.hpp"
#include "dfx/schema/phase_kinds.hpp"

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string render(const dfx::swimlane_capture& capture) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    {
        dfx::text_writer out(f);
        dfx::write_chip_swimlane_json(out, capture);
    }
    std::fclose(f);
    std::string text(data, size);
    std::free(data);
    return text;
}

std::uint64_t u64(simdjson::dom::element e) { return static_cast<std::uint64_t>(e.get_uint64()); }

dfx::queue_depths depths(simdjson::dom::array a) {
    return {static_cast<std::int16_t>(int64_t(a.at(0))), static_cast<std::int16_t>(int64_t(a.at(1))),
            static_cast<std::int16_t>(int64_t(a.at(2)))};
}

dfx::sched_phase_kind kind_of(std::string_view name) {
    if (const auto kind = dfx::schema::phase_kind_from_name(name)) return *kind;
    FAIL("unknown phase kind " << name);
    return dfx::sched_phase_kind::complete;
}

// The reference file as our collector would have captured it.
dfx::swimlane_capture capture_of(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(path);
    dfx::swimlane_capture c;
    c.level = static_cast<int>(int64_t(doc["chip_swimlane_level"]));
    c.clock_freq_hz = u64(doc["metadata"]["clock_freq_hz"]);
    for (auto t : doc["metadata"]["core_types"].get_array())
        c.core_types.push_back(std::string_view(t) == "aic" ? dfx::core_type::aic : dfx::core_type::aiv);
    simdjson::dom::array map;
    if (doc["metadata"]["core_to_thread"].get(map) == simdjson::SUCCESS)
        for (auto t : map) c.core_to_thread.push_back(static_cast<int>(int64_t(t)));
    c.aicore.resize(c.core_types.size());
    c.aicpu.resize(c.core_types.size());
    for (simdjson::dom::array row : doc["aicore_tasks"].get_array()) {
        dfx::aicore_task_record r;
        r.task_token = u64(row.at(1));
        r.reg_task_id = static_cast<std::uint32_t>(u64(row.at(2)));
        r.start = u64(row.at(3));
        r.end = u64(row.at(4));
        r.receive_to_start = static_cast<std::uint32_t>(u64(row.at(5)));
        c.aicore[u64(row.at(0))].push_back(r);
    }
    for (simdjson::dom::array row : doc["aicpu_tasks"].get_array()) {
        const auto core = static_cast<std::uint32_t>(u64(row.at(0)));
        c.aicpu[core].push_back({u64(row.at(2)), u64(row.at(3)), core, static_cast<std::uint32_t>(u64(row.at(1)))});
    }
    simdjson::dom::array pools;
    if (doc["aicpu_scheduler_phases"].get(pools) == simdjson::SUCCESS)
        for (simdjson::dom::array pool : pools) {
            auto& out = c.scheduler_phases.emplace_back();
            for (simdjson::dom::object p : pool) {
                dfx::sched_phase_record r;
                r.kind = kind_of(std::string_view(p["kind"]));
                r.start = u64(p["start_cycles"]);
                r.end = u64(p["end_cycles"]);
                r.loop_iter = static_cast<std::uint32_t>(u64(p["loop_iter"]));
                r.tasks_processed = static_cast<std::uint32_t>(u64(p["tasks_processed"]));
                std::uint64_t v = 0;
                if (p["pop_hit"].get(v) == simdjson::SUCCESS) r.pop_hit = static_cast<std::uint32_t>(v);
                if (p["pop_miss"].get(v) == simdjson::SUCCESS) r.pop_miss = static_cast<std::uint32_t>(v);
                if (p["task_id"].get(v) == simdjson::SUCCESS) r.task_id = v;
                r.depth_at_start = depths(p["shared_at_start"]);
                r.depth_at_end = depths(p["shared_at_end"]);
                out.push_back(r);
            }
        }
    simdjson::dom::array lanes;
    if (doc["aicpu_orchestrator_phases"].get(lanes) == simdjson::SUCCESS)
        for (simdjson::dom::array lane : lanes) {
            auto& out = c.orchestrator_phases.emplace_back();
            for (simdjson::dom::object p : lane)
                out.push_back({u64(p["start_cycles"]), u64(p["end_cycles"]), u64(p["task_id"]),
                               static_cast<std::uint32_t>(u64(p["submit_idx"])), 0});
        }
    return c;
}

}  // namespace

TEST_CASE("the reference's records files round-trip byte for byte") {
    // l4_host is left out: host-orchestrated runs (host_orchestrator_phases,
    // clock anchors) are not captured by this collector.
    for (const char* name : {"l1_small", "l2_nodeps", "l3_deps", "l4_deps"}) {
        CAPTURE(name);
        const std::string path = std::string(DFX_CONFORMANCE_DIR) + "/" + name + "/chip_swimlane_records.json";
        const std::string expected = read_file(path);
        REQUIRE(!expected.empty());
        const std::string ours = render(capture_of(path));
        CHECK(ours.size() == expected.size());
        CHECK(ours == expected);
    }
}

TEST_CASE("the spec's level-4 example, written by hand from chip-swimlane.md 2.8") {
    dfx::swimlane_capture c;
    c.level = 4;
    c.clock_freq_hz = 50'000'000;
    c.core_types = {dfx::core_type::aic, dfx::core_type::aiv};
    c.core_to_thread = {0, 0};
    c.aicore = {{{1000120, 1000620, 4294967296, 1, 5}}, {{1000660, 1001160, 4294967297, 1, 4}}};
    c.aicpu = {{{1000108, 1000630, 0, 1}}, {{1000648, 1001170, 1, 1}}};
    using k = dfx::sched_phase_kind;
    auto phase = [](k kind, std::uint64_t s, std::uint64_t e, std::uint32_t iter, std::uint32_t hit,
                    std::uint32_t miss, dfx::queue_depths at_start, dfx::queue_depths at_end) {
        dfx::sched_phase_record r;
        r.kind = kind;
        r.start = s;
        r.end = e;
        r.loop_iter = iter;
        r.tasks_processed = 1;
        r.pop_hit = hit;
        r.pop_miss = miss;
        r.depth_at_start = at_start;
        r.depth_at_end = at_end;
        return r;
    };
    c.scheduler_phases = {{phase(k::dispatch, 1000100, 1000110, 1, 1, 0, {1, 0, 0}, {0, 0, 0}),
                           phase(k::complete, 1000625, 1000640, 40, 0, 0, {0, 0, 0}, {0, 1, 0}),
                           phase(k::dispatch, 1000640, 1000650, 41, 1, 3, {0, 1, 0}, {0, 0, 0}),
                           phase(k::complete, 1001165, 1001180, 80, 0, 0, {0, 0, 0}, {0, 0, 0})},
                          {},
                          {},
                          {}};
    c.orchestrator_phases = {{{1000000, 1000050, 4294967296, 0, 0}, {1000060, 1000100, 4294967297, 1, 0}}};

    const std::string expected = R"({
  "chip_swimlane_level": 4,
  "metadata": {
    "clock_freq_hz": 50000000,
    "num_cores": 2,
    "core_types": ["aic", "aiv"],
    "core_to_thread": [0, 0]
  },
  "aicore_tasks": [
    [0, 4294967296, 1, 1000120, 1000620, 5],
    [1, 4294967297, 1, 1000660, 1001160, 4]
  ],
  "aicpu_tasks": [
    [0, 1, 1000108, 1000630],
    [1, 1, 1000648, 1001170]
  ],
  "aicpu_scheduler_phases": [
    [
      {"kind": "dispatch", "start_cycles": 1000100, "end_cycles": 1000110, "loop_iter": 1, "tasks_processed": 1, "pop_hit": 1, "pop_miss": 0, "shared_at_start": [1,0,0], "shared_at_end": [0,0,0]},
      {"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640, "loop_iter": 40, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,1,0]},
      {"kind": "dispatch", "start_cycles": 1000640, "end_cycles": 1000650, "loop_iter": 41, "tasks_processed": 1, "pop_hit": 1, "pop_miss": 3, "shared_at_start": [0,1,0], "shared_at_end": [0,0,0]},
      {"kind": "complete", "start_cycles": 1001165, "end_cycles": 1001180, "loop_iter": 80, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]}
    ],
    [],
    [],
    []
  ],
  "aicpu_orchestrator_phases": [
    [
      {"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1000000, "end_cycles": 1000050},
      {"submit_idx": 1, "task_id": 4294967297, "start_cycles": 1000060, "end_cycles": 1000100}
    ]
  ]
}
)";
    CHECK(render(c) == expected);

    SUBCASE("level 1: no core_to_thread, empty aicpu_tasks, no phase keys") {
        c.level = 1;
        c.aicpu = {{}, {}};
        const std::string text = render(c);
        CHECK(text.find("core_to_thread") == std::string::npos);
        CHECK(text.find("\"aicpu_tasks\": []\n}\n") != std::string::npos);
        CHECK(text.find("aicpu_scheduler_phases") == std::string::npos);
        CHECK(text.find("aicpu_orchestrator_phases") == std::string::npos);
    }
    SUBCASE("level 3 without orchestrator records: no orchestrator key") {
        c.level = 3;
        c.orchestrator_phases = {{}};
        const std::string text = render(c);
        CHECK(text.find("aicpu_scheduler_phases") != std::string::npos);
        CHECK(text.find("aicpu_orchestrator_phases") == std::string::npos);
    }
}

TEST_CASE("task ids are written for the task-marker phase kinds only") {
    dfx::swimlane_capture c;
    c.level = 3;
    c.clock_freq_hz = 1;
    c.core_types = {dfx::core_type::aiv};
    for (auto kind : {dfx::sched_phase_kind::dummy_task, dfx::sched_phase_kind::predicated_skip,
                      dfx::sched_phase_kind::graph_prepare, dfx::sched_phase_kind::resolve}) {
        dfx::sched_phase_record r;
        r.kind = kind;
        r.task_id = 18446744073709551615ULL;
        c.scheduler_phases = {{r}};
        const bool expect_task = kind != dfx::sched_phase_kind::resolve;
        CHECK((render(c).find("\"task_id\": 18446744073709551615") != std::string::npos) == expect_task);
    }
}

TEST_CASE("a generic phase is written by name, with the keys every kind has") {
    dfx::swimlane_capture c;
    c.level = 3;
    c.clock_freq_hz = 1;
    c.core_types = {dfx::core_type::aiv};
    dfx::sched_phase_record r;
    r.kind = dfx::sched_phase_kind::generic;
    r.start = 5;
    r.end = 9;
    r.tasks_processed = 2;
    r.pop_hit = 1;
    r.task_id = 7;
    r.depth_at_start = {0, 3, 0};
    c.scheduler_phases = {{r}};
    CHECK(render(c).find(R"({"kind": "generic", "start_cycles": 5, "end_cycles": 9, "loop_iter": 0, )"
                         R"("tasks_processed": 2, "shared_at_start": [0,3,0], "shared_at_end": [0,0,0]})") !=
          std::string::npos);
}

TEST_CASE("nothing captured, no file") {
    dfx::swimlane_capture c;
    c.level = 2;
    c.core_types = {dfx::core_type::aic};
    c.aicore = {{}};
    const auto dir = std::filesystem::temp_directory_path() / "dfx_swimlane_empty_test";
    std::filesystem::remove_all(dir);
    CHECK(dfx::write_chip_swimlane_records(dir, c).empty());
    CHECK_FALSE(std::filesystem::exists(dir / "chip_swimlane_records.json"));
}
