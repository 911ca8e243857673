// perf_sidecar: the per-task core type that `deps_viewer` takes from a
// `chip_swimlane_records.json` lying beside `deps.json` (dep-gen.md §3.1).
//
// The reference runs the full swimlane reader (`read_perf_data`) and keeps, per
// task, only identity and core type; times are not used. So does this: the
// records are read by their one reader (swimlane/records_reader.hpp, with its
// checks, or with --lenient its reference reading), and of them only what
// decides which tasks read_perf_data produces (chip-swimlane.md §2.9 steps
// 1, 2 and 5) is used: the level, the clock frequency, the host-orchestration
// markers and the AICore / AICPU rows joined on (core_id, reg_task_id).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/delta_varint.hpp"
#include "dfx/convert/common/external_sort.hpp"
#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"

namespace dfx::convert::deps {

// The core type the swimlane reader gives one task: the core type of its
// slices, or "mix" when its slices ran on cores of different types; and, when
// asked for (run_times), when it ran: from its first slice's start to its
// last slice's end, in µs from the first start of any task in the file (the
// HTML page's task panel shows it; 0 otherwise).
struct sidecar_task {
    std::string core_type;
    bool mixed = false;
    double start_us = 0;
    double duration_us = 0;
};

// Task id -> its core type, one entry per task.
using sidecar_tasks = std::vector<std::pair<std::uint64_t, sidecar_task>>;

// The tasks' ids alone, sorted, a task once for each row that joined it
// (read_perf_sidecar_ids_sorted): the streamed text view's sidecar.
using sidecar_task_ids = sorted_records<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec>;

namespace detail {

// What the join checks and uses of the file besides its rows.
struct sidecar_file {
    std::optional<std::int64_t> level;
    std::optional<std::int64_t> clock_freq;
    bool host_source = false;
    bool host_phases = false;
    bool host_capture = false;
    bool aicpu_orch_phases = false;
    std::vector<std::string> core_types;

    void take(const swimlane::records_file& rf) {
        if (rf.level && *rf.level >= INT64_MIN && *rf.level <= INT64_MAX) level = static_cast<std::int64_t>(*rf.level);
        if (rf.meta.clock_freq_hz >= INT64_MIN && rf.meta.clock_freq_hz <= INT64_MAX)
            clock_freq = static_cast<std::int64_t>(rf.meta.clock_freq_hz);
        host_source = rf.meta.orchestrator_source == "host";
        host_capture = rf.meta.host_capture.has_value();
        host_phases = !rf.host_orch.empty();
        aicpu_orch_phases = !rf.orch.empty();
        core_types = rf.meta.core_types;
    }

    // What read_perf_data refuses before it joins anything.
    void check() const {
        if (!level || *level < 1 || *level > 4)
            throw input_error("Unsupported chip_swimlane_level: " + (level ? std::to_string(*level) : "missing"));
        if (!clock_freq || *clock_freq <= 0) throw input_error("metadata.clock_freq_hz missing or not positive");
        if ((host_source || host_phases || host_capture) && aicpu_orch_phases)
            throw input_error("host orchestration records together with aicpu_orchestrator_phases (ambiguous clock domain)");
    }
};

// A row's join key: core_id << 32 ^ reg_task_id.
inline std::uint64_t join_key(std::uint64_t core, std::uint64_t reg) { return core << 32 ^ reg; }

// What decides which tasks read_perf_data returns (chip-swimlane.md §2.9
// steps 1, 2 and 5), taken from the file as records_reader read it.
class sidecar_join {
public:
    // `run_times`: keep each AICore row's start and end too (16 bytes a row,
    // only the HTML view shows them).
    explicit sidecar_join(bool run_times) : run_times_(run_times) {}

    // One AICore row, as the reader checks it (records_reader::on_aicore_row:
    // the 48-byte rows are never held, only these 16 bytes of each). (In
    // vectors, not deques: a big vector is a mapping of its own, whose
    // untouched capacity is no RSS and which goes back to the system when
    // freed; a deque's small blocks, freed, leave holes among the main
    // thread's blocks in the one heap: a try with deques peaked at 410 MB
    // at 10^6 tasks, above the 356 MB before it.)
    void add(const swimlane::aicore_row& r) {
        if (r.reg > UINT32_MAX) aicore_reg_high_[aicore_.size()] = static_cast<std::uint32_t>(r.reg >> 32);
        aicore_.push_back({r.token, {r.core, static_cast<std::uint32_t>(r.reg)}});
        if (run_times_) row_span_.emplace_back(r.start, r.end);
    }
    // One AICPU row (records_reader::on_aicpu_row): of it only its join key,
    // 8 bytes.
    void add(const swimlane::aicpu_row& r) {
        if (r.reg > UINT32_MAX) aicpu_reg_high_[aicpu_.size()] = static_cast<std::uint32_t>(r.reg >> 32);
        aicpu_.push_back({r.core, static_cast<std::uint32_t>(r.reg)});
    }

    // The rest of the file as records_reader read it (its rows came through add).
    void take(const swimlane::records_file& rf) { file_.take(rf); }

    // The ids of the tasks read_perf_data would return, in first-seen order:
    // all the text view reads (8 bytes a task, not a sidecar_task's 64).
    // Frees the rows.
    std::vector<std::uint64_t> finish_ids() { return join().tokens; }

    // The tasks read_perf_data would return, reduced to their core type.
    // Frees the rows.
    sidecar_tasks finish() {
        joined j = join();
        sidecar_tasks out;
        out.reserve(j.tokens.size());
        for (std::size_t i = 0; i < j.tokens.size(); ++i)
            out.emplace_back(j.tokens[i], sidecar_task{*j.names[j.types[i].type], j.types[i].mixed});
        if (!run_times_) return out;
        std::uint64_t origin = UINT64_MAX;
        for (const auto& [start, end] : j.span) origin = std::min(origin, start);
        const double us_per_cycle = 1e6 / static_cast<double>(*file_.clock_freq);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto [start, end] = j.span[i];
            out[i].second.start_us = static_cast<double>(start - origin) * us_per_cycle;
            out[i].second.duration_us = end > start ? static_cast<double>(end - start) * us_per_cycle : 0.0;
        }
        return out;
    }

private:
    // The join's result: one entry per task, in first-seen order. A task's
    // core type is kept as the number of its name among the distinct names
    // (compared as numbers, the strings made once at the end).
    struct joined {
        struct core_type {
            std::uint32_t type;
            bool mixed;
        };
        std::vector<std::uint64_t> tokens;  // the task ids (apart: all the text view takes)
        std::vector<core_type> types;       // per task
        std::vector<const std::string*> names;  // each points at a static name or into file_.core_types
        std::vector<std::pair<std::uint64_t, std::uint64_t>> span;  // per task: first start, last end (cycles); with run times
    };

    // The join of chip-swimlane.md §2.9 steps 1, 2 and 5; frees the rows
    // before it returns (the result is built beside them no longer).
    joined join() {
        file_.check();

        joined j;
        static const std::string aiv = "aiv";  // the type of a core outside core_types
        static const std::string none;          // a core type that names none
        std::vector<const std::string*>& names = j.names;
        std::unordered_map<std::string_view, std::uint32_t> id_of_name;
        auto name_id = [&](const std::string& name) {
            const auto [it, inserted] = id_of_name.try_emplace(name, static_cast<std::uint32_t>(names.size()));
            if (inserted) names.push_back(&name);
            return it->second;
        };
        const std::vector<std::string>& core_types = file_.core_types;
        std::vector<std::uint32_t> type_of_core(core_types.size());
        for (std::size_t c = 0; c < core_types.size(); ++c) type_of_core[c] = name_id(core_types[c]);
        const std::uint32_t aiv_id = name_id(aiv);
        const std::uint32_t empty_id = name_id(none);
        // (At most a task per AICore row: reserved so, they never grow and
        // copy themselves, and the capacity they do not use is never touched.)
        j.tokens.reserve(aicore_.size());
        j.types.reserve(aicore_.size());
        const bool run_times = run_times_;
        auto& span = j.span;
        // Task ids are dense as a rule: an array over the rows' tokens (4
        // bytes a slot, id_index::over), else a hashed table for them (2^25
        // slots of 16 bytes at 10^7 tasks, grown as tasks came).
        id_index slot_of = id_index::over([&](auto&& add_id) {
            for (const aicore_row& r : aicore_) add_id(r.token);
        });
        auto add = [&](std::size_t row, std::int64_t core) {
            const std::uint32_t type =
                core >= 0 && static_cast<std::size_t>(core) < type_of_core.size() ? type_of_core[static_cast<std::size_t>(core)] : aiv_id;
            const auto [slot, inserted] = slot_of.emplace(aicore_[row].token, static_cast<std::uint32_t>(j.tokens.size()));
            if (inserted) {
                j.tokens.push_back(aicore_[row].token);
                j.types.push_back({type, false});
                if (run_times) span.push_back(row_span_[row]);
                return;
            }
            if (run_times)
                span[slot] = {std::min(span[slot].first, row_span_[row].first), std::max(span[slot].second, row_span_[row].second)};
            joined::core_type& known = j.types[slot];
            if (type != empty_id && known.type != type) {
                if (known.type == empty_id) known.type = type;
                else known.mixed = true;
            }
        };
        if (!aicpu_.empty()) {
            // Join on (core_id, reg_task_id); a later AICore row for the same
            // key wins.
            const last_row_by_key row_of(aicore_, aicore_reg_high_);
            for (std::size_t i = 0; i < aicpu_.size(); ++i) {
                const row_key k = aicpu_[i];
                const std::uint32_t r = row_of.find(key_of(k.core, reg_of(aicpu_reg_high_, i, k)));
                if (r != last_row_by_key::npos) add(r, k.core);
            }
        } else if (*file_.level == 1) {
            for (std::size_t r = 0; r < aicore_.size(); ++r) add(r, aicore_[r].key.core);
        }
        std::vector<aicore_row>().swap(aicore_);
        std::vector<row_key>().swap(aicpu_);
        std::vector<std::pair<std::uint64_t, std::uint64_t>>().swap(row_span_);
        return j;
    }

    // A row's core_id and reg_task_id in 8 bytes. reg_task_id is a u32
    // dispatch token, but records_reader leniently lets a wider one through:
    // its high word is kept apart, by row (reg_high; rare, and such a file
    // is joined through sorted keys).
    struct row_key {
        std::uint32_t core;
        std::uint32_t reg;  // the low word
    };
    using reg_high = std::unordered_map<std::size_t, std::uint32_t>;  // row -> reg_task_id >> 32, when not 0
    struct aicore_row {
        std::uint64_t token;
        row_key key;
    };

    static std::uint64_t reg_of(const reg_high& high, std::size_t row, row_key k) {
        if (high.empty()) return k.reg;
        const auto it = high.find(row);
        return it == high.end() ? k.reg : std::uint64_t{it->second} << 32 | k.reg;
    }
    static std::uint64_t key_of(std::uint64_t core, std::uint64_t reg) { return join_key(core, reg); }

    // Key (core_id << 32 ^ reg_task_id) -> the last AICore row with it.
    // reg_task_id is a core's dispatch counter, so a core's keys are nearly
    // consecutive: a table per core from its lowest key to its highest, 4
    // bytes a key, filled in row order (the later row overwrites). When the
    // keys are spread wider than 4 slots a row (or a lenient reg_task_id
    // above 2^32-1 overlaps another core's keys), the rows sorted by (key,
    // row) instead, 16 bytes a row. (The sort was 90 of the 730 M
    // instructions of `dfx deps`' sidecar at 5x10^4 tasks; a hash table
    // sized for every row, 134 MB at 10^6 tasks.)
    class last_row_by_key {
    public:
        static constexpr std::uint32_t npos = UINT32_MAX;

        last_row_by_key(const std::vector<aicore_row>& rows, const reg_high& high) {
            std::int64_t cores = 0;
            bool dense = high.empty();  // (every reg_task_id a u32)
            for (const aicore_row& r : rows) {
                if (!dense || r.key.core >= rows.size()) {
                    dense = false;
                    break;
                }
                cores = std::max(cores, std::int64_t{r.key.core} + 1);
            }
            if (dense) {
                std::vector<std::int64_t> lo(static_cast<std::size_t>(cores), INT64_MAX), hi(static_cast<std::size_t>(cores), -1);
                for (const aicore_row& r : rows) {
                    const std::size_t c = r.key.core;
                    lo[c] = std::min(lo[c], std::int64_t{r.key.reg});
                    hi[c] = std::max(hi[c], std::int64_t{r.key.reg});
                }
                std::size_t slots = 0;
                first_.assign(static_cast<std::size_t>(cores) + 1, 0);
                for (std::size_t c = 0; c < lo.size(); ++c) {
                    first_[c] = slots;
                    if (hi[c] >= lo[c]) slots += static_cast<std::size_t>(hi[c] - lo[c] + 1);
                }
                first_.back() = slots;
                if (slots <= 4 * rows.size()) {
                    lo_ = std::move(lo);
                    row_.assign(slots, npos);
                    for (std::size_t r = 0; r < rows.size(); ++r) row_[slot(rows[r].key.core, rows[r].key.reg)] = static_cast<std::uint32_t>(r);
                    return;
                }
                first_.clear();
            }
            sorted_.resize(rows.size());
            for (std::size_t r = 0; r < rows.size(); ++r)
                sorted_[r] = {key_of(rows[r].key.core, reg_of(high, r, rows[r].key)), static_cast<std::uint32_t>(r)};
            std::sort(sorted_.begin(), sorted_.end());
        }

        std::uint32_t find(std::uint64_t key) const {
            if (!first_.empty()) {
                const auto core = static_cast<std::int64_t>(key >> 32);
                const auto reg = static_cast<std::int64_t>(key & UINT32_MAX);
                if (core >= static_cast<std::int64_t>(lo_.size())) return npos;
                const auto c = static_cast<std::size_t>(core);
                if (reg < lo_[c] || first_[c] + static_cast<std::size_t>(reg - lo_[c]) >= first_[c + 1]) return npos;
                return row_[slot(core, reg)];
            }
            const auto it = std::upper_bound(sorted_.begin(), sorted_.end(), std::make_pair(key, UINT32_MAX));
            return it != sorted_.begin() && std::prev(it)->first == key ? std::prev(it)->second : npos;
        }

    private:
        std::size_t slot(std::int64_t core, std::int64_t reg) const {
            const auto c = static_cast<std::size_t>(core);
            return first_[c] + static_cast<std::size_t>(reg - lo_[c]);
        }

        std::vector<std::size_t> first_;  // dense: core -> its first slot (and the end, last); empty when sorted
        std::vector<std::int64_t> lo_;    // dense: core -> its lowest reg_task_id
        std::vector<std::uint32_t> row_;  // dense: slot -> row, npos for none
        std::vector<std::pair<std::uint64_t, std::uint32_t>> sorted_;  // otherwise: (key, row) sorted
    };

    bool run_times_;
    sidecar_file file_;
    std::vector<aicore_row> aicore_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> row_span_;  // per AICore row: start, end; empty without run times
    std::vector<row_key> aicpu_;                                     // per AICPU row: core_id, reg_task_id
    reg_high aicore_reg_high_, aicpu_reg_high_;
};

// sidecar_join's ids (finish_ids) in bounded memory, for the streamed text
// view (deps_text_streamed.hpp): the rows' join keys go to external sorters
// as they are read, and the join is a merge of the sorted streams. The ids
// come out sorted, a task joined by several rows once for each.
class sidecar_ids_join {
public:
    explicit sidecar_ids_join(std::size_t budget_bytes)
        : aicore_(budget_bytes / 2), aicpu_(budget_bytes / 4), ids_budget_(budget_bytes / 4) {}

    void add(const swimlane::aicore_row& r) { aicore_.push({join_key(r.core, r.reg), aicore_.size(), r.token}); }
    void add(const swimlane::aicpu_row& r) { aicpu_.push(join_key(r.core, r.reg)); }
    void take(const swimlane::records_file& rf) { file_.take(rf); }

    // After check(), as sidecar_join: each AICPU row's key picks the last AICore row with
    // that key; with no AICPU rows at level 1, every AICore row is a task.
    void check() const { file_.check(); }
    sidecar_task_ids finish() {
        external_sorter<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> ids(ids_budget_);
        const bool join = aicpu_.size() > 0;
        auto cpu = std::move(aicpu_).finish();
        auto core = std::move(aicore_).finish();
        if (join) {
            const keyed_row* row = core.next();
            std::optional<keyed_row> last;  // of the key just joined
            while (const std::uint64_t* key = cpu.next()) {
                if (last && last->key == *key) continue;
                last.reset();
                for (; row && row->key <= *key; row = core.next())
                    if (row->key == *key) last = *row;  // (by row order within a key: the later wins)
                if (last) ids.push(last->token);
            }
        } else if (*file_.level == 1) {
            while (const keyed_row* row = core.next()) ids.push(row->token);
        }
        return std::move(ids).finish();
    }

private:
    struct keyed_row {
        std::uint64_t key, seq, token;
        friend bool operator<(const keyed_row& a, const keyed_row& b) {
            return a.key != b.key ? a.key < b.key : a.seq < b.seq;
        }
        static constexpr std::size_t radix_words = 2;
        std::uint64_t radix_word(std::size_t i) const { return i == 0 ? key : seq; }
    };
    // Sorted rows as differences (delta_varint.hpp): 3-6 bytes instead of 24.
    struct keyed_row_codec {
        static constexpr std::size_t max_bytes = 3 * varint_max_bytes;
        static void put(std::uint8_t*& w, const keyed_row& prev, const keyed_row& x) {
            put_varint(w, zigzag(x.key - prev.key));
            put_varint(w, zigzag(x.seq - prev.seq));
            put_varint(w, zigzag(x.token - prev.token));
        }
        static keyed_row get(const std::uint8_t*& r, const keyed_row& prev) {
            keyed_row x;
            x.key = prev.key + unzigzag(get_varint(r));
            x.seq = prev.seq + unzigzag(get_varint(r));
            x.token = prev.token + unzigzag(get_varint(r));
            return x;
        }
    };
    sidecar_file file_;
    external_sorter<keyed_row, std::less<keyed_row>, keyed_row_codec> aicore_;
    external_sorter<std::uint64_t, std::less<std::uint64_t>, u64_delta_codec> aicpu_;
    std::size_t ids_budget_;
};

}  // namespace detail

// Reads the sidecar on the calling thread (the viewer reads it beside
// deps.json: one core each) with the one reader of the records file,
// records_reader, leniently as `dfx swimlane --lenient` reads it. Throws
// input_error when it is unreadable or invalid; the viewer fails, or
// leniently warns and goes on without it, as the reference does.
namespace detail {
// Reads the file into a join (both kinds of row handed over as read).
template <class Join>
void read_sidecar_rows(Join& r, const std::string& path, bool lenient, bool run_times) {
    // Batches of 64 KiB instead of 256: the same time, and the batch and the
    // scanner's rows of it are 0.7 MB less (at 10^4 tasks the sidecar's peak
    // was above e9ac140's by that much).
    r.take(swimlane::records_reader(path, std::size_t{1} << 20, std::size_t{64} << 10)
               .lenient(lenient)
               .tasks_only()
               .times_unused(!run_times)
               .threads(reader_threads::one_thread)
               .on_aicore_row([&r](const swimlane::aicore_row& row) { r.add(row); })
               .on_aicpu_row([&r](const swimlane::aicpu_row& row) { r.add(row); })
               .read());
}
}  // namespace detail

inline sidecar_tasks read_perf_sidecar(const std::string& path, bool lenient = false, bool run_times = false) {
    detail::sidecar_join r(run_times);
    detail::read_sidecar_rows(r, path, lenient, run_times);
    try {
        return r.finish();
    } catch (const input_error& e) {
        throw input_error(path + ": " + e.what());
    }
}

// read_perf_sidecar for the text view: the tasks' ids alone, in the same order.
inline std::vector<std::uint64_t> read_perf_sidecar_ids(const std::string& path, bool lenient = false) {
    detail::sidecar_join r(/*run_times=*/false);
    detail::read_sidecar_rows(r, path, lenient, false);
    try {
        return r.finish_ids();
    } catch (const input_error& e) {
        throw input_error(path + ": " + e.what());
    }
}

// read_perf_sidecar_ids in bounded memory (detail::sidecar_ids_join): the
// ids sorted, a task once for each row that joined it.
inline sidecar_task_ids read_perf_sidecar_ids_sorted(const std::string& path, bool lenient, std::size_t budget_bytes) {
    detail::sidecar_ids_join r(budget_bytes);
    detail::read_sidecar_rows(r, path, lenient, false);
    try {
        r.check();
    } catch (const input_error& e) {
        throw input_error(path + ": " + e.what());
    }
    return r.finish();
}

}  // namespace dfx::convert::deps
