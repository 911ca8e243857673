// Where a role view sends finished records. The transport's producer is the
// real sink; tests use simple ones. A sink never throws and never allocates
// on push: the hot path cannot fail.
#pragma once

#include <concepts>

namespace dfx {

template <class Sink, class Record>
concept record_sink = requires(Sink& sink, const Record& record) {
    { sink.push(record) } noexcept;
};

}  // namespace dfx
