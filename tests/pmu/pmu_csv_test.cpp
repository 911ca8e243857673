// pmu.csv (spec B3): the reference's header per event type, written by hand
// from the spec's table; the spec's illustrative rows; and the reference's
// own pmu.csv (event 2) rebuilt byte for byte from its rows.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dfx/output/pmu_csv.hpp"

namespace {

std::string csv(dfx::pmu_event_id event, const std::vector<dfx::pmu_row>& rows) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    {
        dfx::text_writer out(f);
        dfx::write_pmu_csv(out, event, rows);
    }
    std::fclose(f);
    std::string s(data, size);
    std::free(data);
    return s;
}

dfx::pmu_row row(std::uint32_t thread, std::uint32_t core, std::uint64_t task, std::uint32_t func, int core_type,
                 std::uint64_t total, std::vector<std::uint32_t> counters) {
    dfx::pmu_row r;
    r.thread_id = thread;
    r.core_id = core;
    r.record.task_id = task;
    r.record.func_id = func;
    r.record.core = static_cast<dfx::core_type>(core_type);
    r.record.total_cycles = total;
    for (std::size_t i = 0; i < counters.size(); ++i) r.record.counters[i] = counters[i];
    return r;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::string field;
    std::istringstream s(line);
    while (std::getline(s, field, ',')) out.push_back(field);
    return out;
}

}  // namespace

TEST_CASE("the exact reference header for each event type (a2a3)") {
    using dfx::pmu_event_id;
    CHECK(dfx::pmu_csv_header(pmu_event_id::arithmetic_utilization) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,cube_fp16_exec,cube_int8_exec,vec_fp32_exec,"
          "vec_fp16_128lane_exec,vec_fp16_64lane_exec,vec_int32_exec,vec_misc_exec,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::pipe_utilization) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_cycles,"
          "scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_req,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::memory) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,ub_read_req,ub_write_req,l1_read_req,"
          "l1_write_req,l2_read_req,l2_write_req,main_read_req,main_write_req,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::memory_l0) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,l0a_read_req,l0a_write_req,l0b_read_req,"
          "l0b_write_req,l0c_read_req,l0c_write_req,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::resource_conflict) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,bankgroup_stall_cycles,bank_stall_cycles,"
          "vec_resc_conflict_cycles,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::memory_ub) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,ub_read_bw_mte,l2_write_bw,main_mem_write_bw,"
          "ub_write_bw_mte,ub_read_bw_vector,ub_write_bw_vector,ub_read_bw_scalar,ub_write_bw_scalar,event_type");
    CHECK(dfx::pmu_csv_header(pmu_event_id::l2_cache) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,write_cache_hit,write_cache_miss_allocate,"
          "r0_read_cache_hit,r0_read_cache_miss_allocate,r1_read_cache_hit,r1_read_cache_miss_allocate,event_type");
}

TEST_CASE("the spec's illustrative example (B3): a MIX task on three cores, then an AIV task on a second thread") {
    const std::vector<dfx::pmu_row> rows = {
        row(0, 0, 0x0, 3, 0, 52110, {0, 40960, 1830, 12000, 20480, 0, 12, 901}),
        row(0, 1, 0x0, 4, 1, 51870, {30210, 0, 2100, 0, 8800, 6400, 9, 760}),
        row(0, 2, 0x0, 5, 1, 51902, {30188, 0, 2098, 0, 8790, 6410, 9, 758}),
        row(1, 27, 0x0000000100000004, 1, 1, 9120, {2048, 0, 640, 0, 512, 256, 3, 210}),
    };
    CHECK(csv(dfx::pmu_event_id::pipe_utilization, rows) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_req,event_type\n"
          "0,0,0x0000000000000000,3,0,52110,0,40960,1830,12000,20480,0,12,901,2\n"
          "0,1,0x0000000000000000,4,1,51870,30210,0,2100,0,8800,6400,9,760,2\n"
          "0,2,0x0000000000000000,5,1,51902,30188,0,2098,0,8790,6410,9,758,2\n"
          "1,27,0x0000000100000004,1,1,9120,2048,0,640,0,512,256,3,210,2\n");
}

TEST_CASE("unused slots have no column: event 6 writes three counters, whatever the other slots hold") {
    const std::vector<dfx::pmu_row> rows = {row(2, 5, 0xabcdef0123456789ULL, 4294967295u, 0, 18446744073709551615ULL,
                                                {1, 2, 3, 99, 99, 99, 99, 99})};
    CHECK(csv(dfx::pmu_event_id::resource_conflict, rows) ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,bankgroup_stall_cycles,bank_stall_cycles,vec_resc_conflict_cycles,event_type\n"
          "2,5,0xabcdef0123456789,4294967295,0,18446744073709551615,1,2,3,6\n");
}

TEST_CASE("the reference's pmu.csv (event 2) is rebuilt byte for byte from its rows") {
    std::ifstream in(std::string(DFX_CONFORMANCE_DIR) + "/l4_deps/pmu.csv", std::ios::binary);
    std::ostringstream all;
    all << in.rdbuf();
    const std::string expected = all.str();
    std::istringstream lines(expected);
    std::string line;
    std::getline(lines, line);
    std::vector<dfx::pmu_row> rows;
    while (std::getline(lines, line)) {
        const auto f = split(line);
        REQUIRE(f.size() == 15);
        std::vector<std::uint32_t> counters;
        for (int i = 6; i < 14; ++i) counters.push_back(static_cast<std::uint32_t>(std::stoul(f[static_cast<std::size_t>(i)])));
        rows.push_back(row(static_cast<std::uint32_t>(std::stoul(f[0])), static_cast<std::uint32_t>(std::stoul(f[1])),
                           std::stoull(f[2], nullptr, 16), static_cast<std::uint32_t>(std::stoul(f[3])), std::stoi(f[4]),
                           std::stoull(f[5]), counters));
        REQUIRE(f[14] == "2");
    }
    REQUIRE(rows.size() == 519);
    CHECK(csv(dfx::pmu_event_id::pipe_utilization, rows) == expected);
}

TEST_CASE("no rows, no pmu.csv") {
    const auto dir = std::filesystem::temp_directory_path() / "dfx_pmu_csv_empty";
    std::filesystem::remove_all(dir);
    CHECK(dfx::write_pmu_csv_file(dir, dfx::pmu_event_id::memory, {}).empty());
    CHECK_FALSE(std::filesystem::exists(dir / "pmu.csv"));
}
