// perfetto_tables: tables of the Perfetto protobuf backend
// (perfetto_packets.hpp): the interned strings (pf_interner: text -> iid,
// the texts kept in fixed blocks; pf_interned_lookup: a thread's lookups in
// one that no longer changes), the counter points (pf_counter_points:
// one record per packet, however many tracks it carries) and the check that
// a count fits the narrow field it is stored in (pf_narrow).
//
//   pf_interner names;
//   const std::uint32_t iid = names.intern("taskId");   // 1, 2, ... in first-use order
//   std::string_view text = names.order[iid - 1];
//   pf_interned_lookup found(names);                     // per thread, once no one interns
//   found.iid("taskId");                                 // the same iid, or std::logic_error
//   pf_counter_points points;
//   points.add(ts_ns, points.shape_of({track_a, track_b}), {3, 0});
//   const auto at = pf_narrow<std::uint32_t>(bytes.size(), "args bytes");  // or std::length_error
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/same_text.hpp"

namespace dfx::convert::swimlane::trace {

// `v` as the narrow field type T, or an error naming `what` (T's all-ones
// value is reserved: it means "none" in the backend's records).
template <class T, class V>
T pf_narrow(V v, const char* what) {
    bool fits = true;
    if constexpr (std::is_signed_v<V>) fits = v >= 0;
    if (!fits || static_cast<std::uint64_t>(v) >= std::numeric_limits<T>::max()) {
        throw std::length_error(std::string("perfetto_trace: too large for the trace's tables: ") + what);
    }
    return static_cast<T>(v);
}

// The last texts looked up, by address: most names are string literals of
// the sections ("taskId", "event"), so a text seen at the same address as
// before is compared, not hashed (tens of millions of args).
struct pf_address_cache {
    struct slot {
        const char* data = nullptr;
        std::uint32_t iid = 0;
    };
    static constexpr std::size_t size = 64;
    std::array<slot, size> slots{};
    slot& of(std::string_view s) noexcept {
        return slots[((reinterpret_cast<std::uintptr_t>(s.data()) >> 3) ^ s.size()) % size];
    }
};

// Strings by iid. The texts live in fixed blocks, so the views the map keys
// on stay valid as it grows (and as the interner moves).
class pf_interner {
public:
    std::vector<std::string_view> order;  // iid - 1 -> text

    std::uint32_t intern(std::string_view s) {
        pf_address_cache::slot& r = cache_.of(s);
        if (r.data == s.data() && r.iid != 0 && same_text(order[r.iid - 1], s)) return r.iid;
        return looked_up(s, r);
    }
    // The iid of `s`, or 0 if it was never interned. It changes nothing, so
    // several threads may look up at once once no one interns.
    [[nodiscard]] std::uint32_t find(std::string_view s) const {
        const auto found = ids_.find(s);
        return found == ids_.end() ? 0 : found->second;
    }

private:
    // A text not found at its address: hashed (kept out of intern(), which
    // is then a few instructions where it is called).
    [[gnu::noinline]] std::uint32_t looked_up(std::string_view s, pf_address_cache::slot& r) {
        r.data = s.data();
        const auto found = ids_.find(s);
        if (found != ids_.end()) return r.iid = found->second;
        const std::string_view kept = keep(s);
        const auto iid = static_cast<std::uint32_t>(order.size() + 1);
        ids_.emplace(kept, iid);
        order.push_back(kept);
        return r.iid = iid;
    }

    std::string_view keep(std::string_view text) {
        if (text.size() > left_) {
            const std::size_t size = std::max<std::size_t>(text.size(), std::size_t{1} << 16);
            blocks_.push_back(std::make_unique<char[]>(size));
            at_ = blocks_.back().get();
            left_ = size;
        }
        std::copy(text.begin(), text.end(), at_);
        const std::string_view kept(at_, text.size());
        at_ += text.size();
        left_ -= text.size();
        return kept;
    }
    pf_address_cache cache_;
    std::unordered_map<std::string_view, std::uint32_t> ids_;
    std::vector<std::unique_ptr<char[]>> blocks_;
    std::size_t left_ = 0;
    char* at_ = nullptr;
};

// One thread's lookups in an interner that no one changes any more: by
// address first (its own cache), else by the bytes. A text the interner
// does not have is an error: the second pass handed in a name the first did
// not.
class pf_interned_lookup {
public:
    explicit pf_interned_lookup(const pf_interner& table) : table_(&table) {}
    std::uint32_t iid(std::string_view s) {
        pf_address_cache::slot& r = cache_.of(s);
        if (r.data == s.data() && r.iid != 0 && same_text(table_->order[r.iid - 1], s)) return r.iid;
        return looked_up(s, r);
    }

private:
    [[gnu::noinline]] std::uint32_t looked_up(std::string_view s, pf_address_cache::slot& r) {
        const std::uint32_t iid = table_->find(s);
        if (iid == 0) {
            throw std::logic_error("perfetto_trace: a name in the second pass that the first did not have: \"" +
                                   std::string(s.substr(0, 80)) + "\"");
        }
        r = {s.data(), iid};
        return iid;
    }
    const pf_interner* table_;
    pf_address_cache cache_;
};

// Counter points, a record per packet: the points of one or more counter
// tracks at one time (a phase's three ready-queue depths: 16 + 3 * 8 bytes,
// not 3 records), the tracks named by the packet's shape, the values in
// `values`.
class pf_counter_points {
public:
    struct packet {  // 16 bytes
        std::int64_t ts;
        std::uint32_t values_at;
        std::uint32_t shape;  // shapes[shape]: its tracks, the first one the event's
    };
    std::vector<packet> packets;
    std::vector<std::int64_t> values;
    std::vector<std::vector<std::uint32_t>> shapes;

    void reserve(std::size_t points) {
        packets.reserve(points);
        values.reserve(points);
    }
    // The id of the shape `tracks`.
    std::uint32_t shape_of(std::vector<std::uint32_t> tracks) {
        const auto [it, added] = ids_.try_emplace(tracks, static_cast<std::uint32_t>(shapes.size()));
        if (added) shapes.push_back(std::move(tracks));
        return it->second;
    }
    // A packet at `ts` of shape `shape`: one value per track, or (a list of
    // pairs) one .second per track.
    template <class Values>
    void add(std::int64_t ts, std::uint32_t shape, const Values& point_values) {
        packets.push_back({ts, pf_narrow<std::uint32_t>(values.size(), "counter values"), shape});
        for (const auto& v : point_values) {
            if constexpr (std::is_integral_v<std::decay_t<decltype(v)>>) {
                values.push_back(v);
            } else {
                values.push_back(v.second);
            }
        }
    }
    void add(std::int64_t ts, std::uint32_t shape, std::initializer_list<std::int64_t> point_values) {
        add<std::initializer_list<std::int64_t>>(ts, shape, point_values);
    }

private:
    std::map<std::vector<std::uint32_t>, std::uint32_t> ids_;
};

}  // namespace dfx::convert::swimlane::trace
