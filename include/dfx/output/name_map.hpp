// The name map: kernel names for func ids, so the tools label tasks with
// names instead of func_<n>. `name_map_<case>.json` at L2 (the case name is
// sanitised: anything but letters, digits and ._- becomes _), `name_map.json`
// in an L3 dispatch directory. Layout as the reference writes it (Python's
// json.dumps with indent=2):
//
//   {
//     "level": 2,
//     "orchestrator_name": null,
//     "callable_id_to_name": {
//       "0": "QK"
//     }
//   }
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx {

// The kernels a runtime registers: func id -> name, in registration order.
struct kernel_table {
    int level = 2;
    std::optional<std::string> orchestrator_name;
    std::vector<std::pair<std::int64_t, std::string>> kernels;

    void add(std::int64_t func_id, std::string name) { kernels.emplace_back(func_id, std::move(name)); }
    bool empty() const noexcept { return kernels.empty() && !orchestrator_name; }
};

inline std::string sanitize_case_name(std::string_view name) {
    std::string out(name);
    for (char& c : out) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                          c == '_' || c == '-';
        if (!keep) c = '_';
    }
    return out;
}

inline void write_name_map_json(text_writer& out, const kernel_table& table) {
    out.raw("{\n  \"level\": ").number(table.level).raw(",\n  \"orchestrator_name\": ");
    if (table.orchestrator_name)
        out.string(*table.orchestrator_name);
    else
        out.raw("null");
    if (!table.kernels.empty()) {
        out.raw(",\n  \"callable_id_to_name\": {");
        bool first = true;
        for (const auto& [id, name] : table.kernels) {
            out.raw(first ? "\n    " : ",\n    ").string(std::to_string(id)).raw(": ").string(name);
            first = false;
        }
        out.raw("\n  }");
    }
    out.raw("\n}\n");
}

// Writes <prefix>/name_map_<case>.json, or <prefix>/name_map.json when the
// case name is empty (L3 dispatch directories). Nothing is written for an
// empty table; returns the path written or an empty path.
inline std::filesystem::path write_name_map(const std::filesystem::path& prefix, std::string_view case_name,
                                            const kernel_table& table) {
    if (table.empty()) return {};
    const std::string file =
        case_name.empty() ? std::string(schema::name_map_file)
                          : std::string(schema::name_map_stem) + "_" + sanitize_case_name(case_name) +
                                std::string(schema::name_map_extension);
    const auto path = prefix / file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_name_map_json(out, table);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
