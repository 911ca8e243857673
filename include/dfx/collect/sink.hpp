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
#pragma once

#include <concepts>

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

}  // namespace dfx
