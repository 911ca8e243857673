// expect: dfx::device_counter: the counter frequency must be > 0 Hz
#include <cstdint>

#include "dfx/policy/clock.hpp"

inline std::uint64_t read_counter() noexcept { return 0; }

#ifdef DFX_COMPILE_FAIL
using counter = dfx::device_counter<read_counter, 0>;
#else
using counter = dfx::device_counter<read_counter, 50'000'000>;
#endif
static_assert(counter::frequency_hz() > 0);
