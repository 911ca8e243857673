// Where a role view sends finished records. The transport's producer is the
// real sink; tests use simple ones. A sink never throws and never allocates
// on push: the hot path cannot fail.
//
//   dfx::emit_record<R>(sink, [&](R& r) { r.field = ...; });
// writes one record in place, in the transport's slot, when the sink can
// claim one (dfx::producers, transport/producer.hpp), so a large record is
// not built on the stack and copied; with a push-only sink it builds the
// record and pushes it. A record the overflow policy drops is not filled.
//
//   dfx::emplace_record<R>(sink, [&] { return R{.field = ..., ...}; });
// the same for a record whose every field is known at once: constructed in
// the slot from make()'s result (no default initialisation, then a second
// write of each field), or built and pushed.
//
//   dfx::emit_packed<R>(sink, payload, [&](R& r) { ...header and payload bytes after it... });
// the same for a packed record (transport/packed_records.hpp): claimed at
// its size and committed once; a push-only sink gets the header pushed with
// its payload right after it in memory (built in a local slot).
#pragma once

#include <concepts>
#include <cstdint>
#include <new>

namespace dfx {

template <class Sink, class Record>
concept record_sink = requires(Sink& sink, const Record& record) {
    { sink.push(record) } noexcept;
};

template <class Record, class Sink, class Fill>
void emit_record(Sink& sink, Fill&& fill) noexcept {
    if constexpr (requires { { sink.template claim<Record>() } -> std::same_as<Record*>; }) {
        if (Record* r = sink.template claim<Record>()) {
            fill(*r);
            sink.template commit<Record>();
        }
    } else {
        Record r;
        fill(r);
        sink.push(r);
    }
}

template <class Record, class Sink, class Make>
void emplace_record(Sink& sink, Make&& make) noexcept {
    if constexpr (requires { { sink.template claim<Record>(make) } -> std::same_as<Record*>; }) {
        if (sink.template claim<Record>(make)) sink.template commit<Record>();
    } else {
        sink.push(make());
    }
}

// A sink that claims a packed record in place at its size (dfx::producers).
template <class Sink, class Record>
concept packed_sink = requires(Sink& sink, std::uint32_t payload) {
    { sink.template claim<Record>(payload) } noexcept -> std::same_as<Record*>;
    { sink.template commit<Record>(payload) } noexcept;
};

template <class Record, class Sink, class Fill>
void emit_packed(Sink& sink, std::uint32_t payload, Fill&& fill) noexcept {
    if constexpr (packed_sink<Sink, Record>) {
        if (Record* r = sink.template claim<Record>(payload)) {
            fill(*r);
            sink.template commit<Record>(payload);
        }
    } else {
        alignas(64) unsigned char slot[Record::packed_slot_bytes];
        Record* r = ::new (static_cast<void*>(slot)) Record;
        fill(*r);
        sink.push(*r);
    }
}

}  // namespace dfx
