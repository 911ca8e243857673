// scope_sites: the scope sites of a scope_stats.jsonl, each name stored once.
// A run writes millions of boundary records but a handful of distinct sites
// ("file.cpp:line"): a std::string per record was a third of the record's
// size and, past 15 characters, a heap block of its own. Records and pairs
// carry a 32-bit id instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dfx::convert {

class scope_sites {
public:
    // The id of `name`, added if new. Ids are dense, in first-seen order.
    std::uint32_t intern(std::string_view name) {
        if (const auto it = ids_.find(name); it != ids_.end()) return it->second;
        const auto id = static_cast<std::uint32_t>(names_.size());
        names_.emplace_back(name);
        ids_.emplace(names_.back(), id);
        return id;
    }
    const std::string& operator[](std::uint32_t id) const { return names_[id]; }
    [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

private:
    std::vector<std::string> names_;
    std::map<std::string, std::uint32_t, std::less<>> ids_;  // less<>: looked up by string_view, no copy
};

}  // namespace dfx::convert
