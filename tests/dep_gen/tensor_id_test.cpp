// Tensor ids against an FNV-1a written out separately here over an explicit
// byte string (itself checked against the published FNV-1a 64 test vectors),
// and against the ids the spec states.
#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "dfx/output/tensor_id.hpp"

namespace {

std::uint64_t fnv1a64(const std::vector<unsigned char>& bytes) {
    std::uint64_t h = 14695981039346656037ull;  // 0xcbf29ce484222325
    for (unsigned char b : bytes) {
        h ^= b;
        h *= 1099511628211ull;  // 0x100000001b3
    }
    return h;
}

std::vector<unsigned char> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

// addr as 8 little-endian bytes, then the version's 32 bits as 4.
std::vector<unsigned char> key_bytes(std::uint64_t addr, std::int32_t version) {
    std::vector<unsigned char> out;
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(addr >> (8 * i)));
    const std::uint32_t v = static_cast<std::uint32_t>(version);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
    return out;
}

}  // namespace

TEST_CASE("the separate FNV-1a 64 matches the published test vectors") {
    CHECK(fnv1a64({}) == 0xcbf29ce484222325ull);
    CHECK(fnv1a64(bytes_of("a")) == 0xaf63dc4c8601ec8cull);
    CHECK(fnv1a64(bytes_of("foobar")) == 0x85944171f73967e8ull);
}

TEST_CASE("tensor_id_of is FNV-1a over addr (8 LE bytes) then (u32)version (4 LE bytes)") {
    const std::uint64_t addrs[] = {0, 1, 0x10000, 0x40000, 0xFFFF800000001000ull, UINT64_MAX, 0x0123456789ABCDEFull};
    const std::int32_t versions[] = {0, 1, 7, -1, INT32_MAX, INT32_MIN};
    for (const std::uint64_t addr : addrs)
        for (const std::int32_t version : versions) {
            CAPTURE(addr);
            CAPTURE(version);
            CHECK(dfx::tensor_id_of(addr, version) == fnv1a64(key_bytes(addr, version)));
        }
}

TEST_CASE("the ids the spec's example states") {
    CHECK(dfx::tensor_id_of(0x10000, 0) == 4306162345584902732ull);
    CHECK(dfx::tensor_id_of(0x30000, 0) == 7857886199663331038ull);
    CHECK(dfx::tensor_id_of(0x40000, 0) == 17425320638176811889ull);
    static_assert(dfx::tensor_id_of(0x40000, 0) == 17425320638176811889ull, "usable at compile time");
}
