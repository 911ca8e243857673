// Channels that hold a whole benchmark run, so a collector's producer never
// waits for the host: what a collector costs the producing thread itself,
// with the host's drain and wake-up latency taken out (on a loaded 2-core
// machine they dominate the live-host numbers: a parked producer's spins and
// yields count as its CPU time).
//
//   bench::no_wait_channels<Sink> ch(tasks, records_per_task);   // before the timed loop
//   auto sink = ch.sink();
//   for (auto _ : state) { ...the role's loop, stamping into sink... }   // Iterations(tasks)
//   ch.check(state, sink, {expected per kind...});                // host drains, accounting exact
//
// The buffers are written once before the run (no page faults in the timed
// loop, as a long-running channel's recycled buffers have none), the host
// thread starts only after the loop. A benchmark that uses it must fix its
// iteration count (->Iterations(N)) to what the channels were sized for.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checked_run.hpp"
#include "dfx/collect/producers.hpp"
#include "dfx/transport/transport_host.hpp"

namespace bench {

template <class Sink>
class no_wait_channels;

template <class Overflow, class... Records>
class no_wait_channels<dfx::producers<Overflow, Records...>> {
public:
    using sink_type = dfx::producers<Overflow, Records...>;
    static constexpr std::uint32_t records_per_buffer = 1024;

    // per_task: records of each kind per task, in the sink's kind order (one entry per kind).
    // record_bytes (optional, same order): the most buffer bytes one record of
    // a packed kind takes (transport/packed_records.hpp), so its channel holds
    // the run in fewer buffers than at a whole slot per record; 0 = a slot.
    no_wait_channels(std::uint64_t tasks, const std::vector<std::uint64_t>& per_task,
                     const std::vector<std::uint32_t>& record_bytes = {})
        : refs_(make_refs(tasks, per_task.data(), record_bytes, std::index_sequence_for<Records...>{})) {}

    sink_type sink() const { return std::make_from_tuple<sink_type>(refs_); }

    // After the loop: the sink publishes, the host drains; exactly
    // per_task x iterations records of each kind collected, none dropped.
    void check(benchmark::State& state, sink_type& sink, const std::vector<std::uint64_t>& per_task) {
        sink.finish();
        host_.start();
        host_.stop();
        const auto report = host_.report();
        const std::uint64_t* expected = per_task.data();
        const auto tasks = static_cast<std::uint64_t>(state.iterations());
        for (std::size_t k = 0; k < report.size(); ++k) {
            const auto& r = report[k];
            if (r.collected == expected[k] * tasks && r.dropped == 0 && r.balanced()) continue;
            ++failed_checks;
            const std::string why = r.name + ": " + std::to_string(r.collected) + " records collected, " +
                                    std::to_string(r.dropped) + " dropped, expected " +
                                    std::to_string(expected[k] * tasks);
            state.SkipWithError(why.c_str());
            return;
        }
    }

private:
    template <std::size_t... I>
    std::tuple<dfx::channel_ref<Records>...> make_refs(std::uint64_t tasks, const std::uint64_t* per_task,
                                                        const std::vector<std::uint32_t>& record_bytes,
                                                        std::index_sequence<I...>) {
        return {add<Records>(tasks * per_task[I], I < record_bytes.size() ? record_bytes[I] : 0)...};
    }

    template <class Record>
    dfx::channel_ref<Record> add(std::uint64_t records, std::uint32_t record_bytes) {
        constexpr std::uint64_t slot = dfx::channel_record_size<Record>();
        const std::uint64_t slots = record_bytes == 0 ? records : (records * record_bytes + slot - 1) / slot;
        const auto buffers = static_cast<std::uint32_t>(slots / records_per_buffer + 2);
        auto ref = host_.add_channel<Record>("no-wait", 0, buffers, records_per_buffer, [](auto) {});  // a span, or packed_records
        const dfx::channel_view view(ref.device_block);
        // Touch every buffer once, outside the timed loop.
        std::memset(view.records(0) - sizeof(dfx::buffer_header), 0,
                    view.geometry().total_bytes - view.geometry().buffers_offset);
        return ref;
    }

    dfx::transport_host<> host_;
    std::tuple<dfx::channel_ref<Records>...> refs_;
};

}  // namespace bench
