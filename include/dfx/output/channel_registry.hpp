// Where a thread finds its channels: each collector's host registers the
// channels it created, by record kind and index (core, scheduler thread or
// orchestrator lane), and a thread's sink is built from the kinds it sends,
// whichever collectors own them.
//
//   dfx::channel_registry channels;
//   dfx::swimlane_host swimlane(level, layout, channels);
//   dfx::dep_gen_host deps(channels);
//   auto sink = channels.sink<dfx::orchestrator_sink<G, dfx::block<>>>(0);
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/collect/producers.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/record/dep_gen_records.hpp"
#include "dfx/record/pmu_record.hpp"
#include "dfx/record/scope_stats_records.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

// How much buffering one channel gets.
struct channel_size {
    std::uint32_t buffers;
    std::uint32_t records_per_buffer;
};

template <class Record>
struct record_kind;
template <> struct record_kind<aicore_task_record> { static constexpr const char* name = "AICore task"; };
template <> struct record_kind<aicpu_task_record> { static constexpr const char* name = "AICPU task"; };
template <> struct record_kind<sched_phase_record> { static constexpr const char* name = "scheduler phase"; };
template <> struct record_kind<orch_phase_record> { static constexpr const char* name = "orchestrator phase"; };
template <> struct record_kind<dep_gen_record> { static constexpr const char* name = "dep_gen"; };
template <> struct record_kind<scope_stats_record> { static constexpr const char* name = "scope stats"; };
template <> struct record_kind<pmu_record> { static constexpr const char* name = "PMU"; };
template <> struct record_kind<args_dump_record> { static constexpr const char* name = "args dump"; };
template <> struct record_kind<args_payload_chunk> { static constexpr const char* name = "args dump payload"; };

class channel_registry {
public:
    template <class Record>
    void add(std::uint32_t index, channel_ref<Record> ref) {
        auto& slots = channels_[key<Record>()];
        if (slots.size() <= index) slots.resize(index + 1, nullptr);
        slots[index] = ref.device_block;
    }

    // Asking for a channel no collector created is a wiring error (say, a
    // view compiled for a higher level than the collector captures).
    template <class Record>
    channel_ref<Record> get(std::uint32_t index) const {
        const auto it = channels_.find(key<Record>());
        if (it == channels_.end() || index >= it->second.size() || !it->second[index])
            throw output_error(std::string("no ") + record_kind<Record>::name + " channel " + std::to_string(index) +
                               " was created (is that collector on, at that level?)");
        return {it->second[index]};
    }

    template <class Record>
    std::size_t count() const {
        const auto it = channels_.find(key<Record>());
        return it == channels_.end() ? 0 : it->second.size();
    }

    // A thread's sink, built in place by the caller: auto sink = channels.sink<S>(i);
    template <class Sink>
    Sink sink(std::uint32_t index) const {
        return std::make_from_tuple<Sink>(channels<Sink>(index));
    }

    // The handles a thread's sink is built from (a lane takes them; they can
    // cross from a host translation unit to a hot-path one).
    template <class Sink>
    sink_channels_t<Sink> channels(std::uint32_t index) const {
        return refs(static_cast<Sink*>(nullptr), index);
    }

private:
    template <class Record>
    static const void* key() noexcept {
        static const char tag = 0;
        return &tag;
    }

    template <class Overflow, class... Records>
    std::tuple<channel_ref<Records>...> refs(producers<Overflow, Records...>*, [[maybe_unused]] std::uint32_t index) const {
        return {get<Records>(index)...};
    }

    std::unordered_map<const void*, std::vector<void*>> channels_;
};

}  // namespace dfx
