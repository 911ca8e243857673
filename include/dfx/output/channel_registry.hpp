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
#include <utility>
#include <vector>

#include "dfx/collect/producers.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/record/args_call_record.hpp"
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
template <> struct record_kind<args_call_record> { static constexpr const char* name = "args dump"; };
template <> struct record_kind<args_payload_chunk> { static constexpr const char* name = "args dump payload"; };

class channel_registry {
public:
    template <class Record>
    void add(std::uint32_t index, channel_ref<Record> ref) {
        add(key<Record>(), index, ref.device_block);
    }

    // Asking for a channel no collector created is a wiring error (say, a
    // view compiled for a higher level than the collector captures).
    template <class Record>
    channel_ref<Record> get(std::uint32_t index) const {
        return {get(key<Record>(), index, record_kind<Record>::name)};
    }

    template <class Record>
    std::size_t count() const {
        const std::vector<void*>* slots = find(key<Record>());
        return slots ? slots->size() : 0;
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

    // What does not depend on the record type, compiled once for all of them.
    // A run has at most a handful of record kinds: a list beats a hash map.
    const std::vector<void*>* find(const void* kind) const noexcept {
        for (const auto& [k, slots] : channels_)
            if (k == kind) return &slots;
        return nullptr;
    }
    void add(const void* kind, std::uint32_t index, void* block) {
        std::vector<void*>* slots = nullptr;
        for (auto& [k, s] : channels_)
            if (k == kind) slots = &s;
        if (!slots) slots = &channels_.emplace_back(kind, std::vector<void*>{}).second;
        if (slots->size() <= index) slots->resize(index + 1, nullptr);
        (*slots)[index] = block;
    }
    void* get(const void* kind, std::uint32_t index, const char* kind_name) const {
        const std::vector<void*>* slots = find(kind);
        if (!slots || index >= slots->size() || !(*slots)[index])
            detail::throw_output_error({"no ", kind_name, " channel ", index,
                                        " was created (is that collector on, at that level?)"});
        return (*slots)[index];
    }

    std::vector<std::pair<const void*, std::vector<void*>>> channels_;  // record kind -> block per index
};

}  // namespace dfx
