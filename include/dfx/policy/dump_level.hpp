// Args-dump level as a type.
//   0 off
//   1 only the arguments marked for dumping (pl.dump_tag / dumps=[...] in the seeds)
//   2 every binding of every task
// The reference runtime also knows 3 ("hybrid"), which PyPTO never exposes;
// we do not either.
#pragma once

namespace dfx {

inline constexpr int max_dump_level = 2;

template <int Level>
struct dump_level {
    static_assert(Level >= 0 && Level <= max_dump_level,
                  "dfx::dump_level: dump level in [0, 2] (0=off, 1=marked arguments only, "
                  "2=every argument of every task)");

    static constexpr int value = Level;
    static constexpr bool enabled = Level >= 1;
    static constexpr bool marked_only = Level == 1;
    static constexpr bool everything = Level == 2;
};

}  // namespace dfx
