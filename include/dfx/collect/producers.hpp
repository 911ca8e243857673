// A thread's producers, one per record kind it emits, as one sink: the role
// view pushes records of several kinds and each lands in its own channel.
//
//   dfx::producers<dfx::block<>, dfx::aicpu_task_record, dfx::sched_phase_record> sink{refs...};
//   dfx::scheduler_view<guards, clock, decltype(sink)> view{&sink};
//
// With no record kinds it is an empty type: a role with every collector off
// has nothing to send.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dfx/transport/producer.hpp"

namespace dfx {

template <class Overflow, class... Records>
class producers : private producer<Records, Overflow>... {
public:

    explicit producers(channel_ref<Records>... refs) noexcept : producer<Records, Overflow>(refs)... {}

    using producer<Records, Overflow>::push...;
    // In place (transport/producer.hpp): claim<R>() -> R* or nullptr (dropped), then commit<R>();
    // a packed record (transport/packed_records.hpp): claim<R>(payload), commit<R>(payload).
    // Either takes a last argument make, a callable returning the record: it
    // is then constructed in the slot from its final values.
    template <class Record, class... Claim>
    [[nodiscard]] Record* claim(Claim&&... claim) noexcept {
        return static_cast<producer<Record, Overflow>&>(*this).claim(std::forward<Claim>(claim)...);
    }
    template <class Record, class... Size>
    void commit(Size... payload) noexcept {
        static_cast<producer<Record, Overflow>&>(*this).commit(payload...);
    }

    // The items a dropped record of one kind carried (producer::count_dropped_items).
    template <class Record>
    void count_dropped_items(std::uint64_t items) noexcept {
        static_cast<producer<Record, Overflow>&>(*this).count_dropped_items(items);
    }

    // Publishes every partial buffer; the destructor does it too.
    void finish() noexcept { (producer<Records, Overflow>::finish(), ...); }

    // Records of one kind pushed so far, delivered or dropped: a position in
    // that channel's stream both sides agree on (the args dump numbers its
    // payload chunks with it).
    template <class Record>
    std::uint64_t produced() const noexcept {
        return static_cast<const producer<Record, Overflow>&>(*this).produced();
    }
    // Records one kind's channel holds in all its buffers.
    template <class Record>
    std::uint64_t capacity() const noexcept {
        return static_cast<const producer<Record, Overflow>&>(*this).capacity();
    }
};

template <class Overflow>
class producers<Overflow> {
public:
    void finish() noexcept {}
};

// `producers` of the kinds whose switch is on: when<On, Record>...
template <bool On, class Record>
struct when {};

namespace detail {
template <class Result, class... Picks>
struct pick_producers;
template <class Overflow, class... Kept>
struct pick_producers<producers<Overflow, Kept...>> {
    using type = producers<Overflow, Kept...>;
};
template <class Overflow, class... Kept, bool On, class Record, class... Rest>
struct pick_producers<producers<Overflow, Kept...>, when<On, Record>, Rest...> {
    using type = typename pick_producers<
        std::conditional_t<On, producers<Overflow, Kept..., Record>, producers<Overflow, Kept...>>, Rest...>::type;
};
}  // namespace detail

template <class Overflow, class... Picks>
using producers_of = typename detail::pick_producers<producers<Overflow>, Picks...>::type;

// The channel handles a sink is built from, one channel_ref per record kind:
// std::make_from_tuple<Sink>(channels) builds it.
template <class Sink>
struct sink_channels;
template <class Overflow, class... Records>
struct sink_channels<producers<Overflow, Records...>> {
    using type = std::tuple<channel_ref<Records>...>;
};
template <class Sink>
using sink_channels_t = typename sink_channels<Sink>::type;

}  // namespace dfx
