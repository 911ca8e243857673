// The producer map the dependency replay rebuilds the runtime's edges with
// (spec dep-gen.md §1.8, "Tensormap semantics"): for each buffer address, the
// slices producers wrote into it, looked up newest-inserted first.
//
// Unlike the runtime's map it never retires an entry: the replay has no
// notion of a task completing, so a slice stays visible for the whole trace
// and leaves only when an INOUT consumer covers it. That is what makes the
// replayed graph the one the runtime would have built had no producer retired
// before its consumers were submitted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dfx/output/tensor_overlap.hpp"
#include "dfx/output/u64_index.hpp"
#include "dfx/record/tensor_view.hpp"

namespace dfx {

class replay_tensormap {
public:
    // What a lookup's visitor tells the map to do with the entry it was shown.
    enum class after_hit { keep, remove };

    void insert(const tensor_view& produced, std::uint64_t producer) {
        const auto [index, fresh] = addrs_.insert(produced.addr);
        if (fresh) by_addr_.emplace_back();
        by_addr_[index].push_back(produced_slice::of(produced, producer));
    }

    // Calls visit(const produced_slice&, tensor_overlap) for every entry of the
    // consumer's buffer that it may depend on (NO_OVERLAP entries are skipped),
    // newest first. The visitor may remove the entry it is shown; the others
    // are unaffected.
    template <class Visit>
    void lookup(const tensor_view& consumer, Visit&& visit) {
        const std::uint32_t index = addrs_.find(consumer.addr);
        if (index == detail::u64_index::npos) return;
        std::vector<produced_slice>& slices = by_addr_[index];  // oldest first
        for (std::size_t i = slices.size(); i-- > 0;) {
            const tensor_overlap overlap = classify_overlap(consumer, slices[i]);
            if (overlap == tensor_overlap::no_overlap) continue;
            if (visit(static_cast<const produced_slice&>(slices[i]), overlap) == after_hit::remove)
                slices.erase(slices.begin() + static_cast<std::ptrdiff_t>(i));  // only newer indices move
        }
    }

private:
    detail::u64_index addrs_;                           // buffer address -> index into by_addr_
    std::vector<std::vector<produced_slice>> by_addr_;  // its slices, oldest first
};

}  // namespace dfx
