// The two on/off collectors as types: dependency-graph capture (deps.json)
// and scope stats (ring fill per scope).
#pragma once

namespace dfx {

template <bool On>
struct dep_gen {
    static constexpr bool value = On;
    static constexpr bool enabled = On;
};

template <bool On>
struct scope_stats {
    static constexpr bool value = On;
    static constexpr bool enabled = On;
};

}  // namespace dfx
