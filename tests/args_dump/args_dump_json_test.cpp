// args_dump.json's writer (spec A3.1) against the reference's own file, the
// scalar value rendering table, and args.bin's assembly from payload chunks.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "dfx/output/args_bin_stream.hpp"
#include "dfx/output/args_dump_json.hpp"
#include "reference_dump.hpp"

namespace {

template <class Write>
std::string to_string(Write write) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    {
        dfx::text_writer out(f);
        write(out);
    }
    std::fclose(f);
    std::string s(data, size);
    std::free(data);
    return s;
}

std::string scalar(dfx::dtype type, std::uint64_t raw) {
    return to_string([&](dfx::text_writer& out) { dfx::write_args_dump_scalar(out, static_cast<std::uint8_t>(type), raw); });
}

std::uint64_t float_bits(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}

}  // namespace

TEST_CASE("the reference's args_dump.json is rebuilt byte for byte from its records, in collection order") {
    const auto ref = dump_test::load_reference_dump();
    REQUIRE(ref.entries.size() == 63);
    // Fed in the order the reference collected them (not its file order), so
    // the sort is exercised: stage before arg_index, and the 22 SPMD blocks
    // of task 0x...0a keep their args.bin order.
    auto entries = dump_test::collection_order(ref.entries);
    bool permuted = false;
    for (std::size_t i = 0; i < entries.size(); ++i)
        permuted |= entries[i].record.task_id != ref.entries[i].record.task_id ||
                    entries[i].record.arg_index != ref.entries[i].record.arg_index;
    REQUIRE(permuted);
    dfx::sort_args_dump(entries);
    dfx::args_dump_header header;
    header.level = ref.level;
    header.dropped_records = ref.dropped_records;
    const std::string ours = to_string([&](dfx::text_writer& out) { dfx::write_args_dump_json(out, header, entries); });
    CHECK(ours == ref.json);
}

TEST_CASE("scalar values: FLOAT32 as C++ streams print it, ints by width and sign, others as raw u64") {
    CHECK(scalar(dfx::dtype::float32, float_bits(0.5f)) == "0.5");
    CHECK(scalar(dfx::dtype::float32, float_bits(1.0f)) == "1.0");            // ".0" added
    CHECK(scalar(dfx::dtype::float32, float_bits(0.0883883476f)) == "0.0883883");  // 6 significant digits
    CHECK(scalar(dfx::dtype::float32, float_bits(100000.0f)) == "100000.0");
    CHECK(scalar(dfx::dtype::float32, float_bits(1234567.0f)) == "1.23457e+06");
    CHECK(scalar(dfx::dtype::float32, float_bits(1e-7f)) == "1e-07");
    CHECK(scalar(dfx::dtype::float32, float_bits(-0.0f)) == "-0.0");
    CHECK(scalar(dfx::dtype::float32, float_bits(std::numeric_limits<float>::quiet_NaN())) == "null");
    CHECK(scalar(dfx::dtype::float32, float_bits(std::numeric_limits<float>::infinity())) == "\"$Inf\"");
    CHECK(scalar(dfx::dtype::float32, float_bits(-std::numeric_limits<float>::infinity())) == "\"-$Inf\"");
    CHECK(scalar(dfx::dtype::float32, 0xFFFFFFFF00000000ULL | float_bits(2.0f)) == "2.0");  // low 4 bytes only
    CHECK(scalar(dfx::dtype::int32, 0xFFFFFFFDULL) == "-3");
    CHECK(scalar(dfx::dtype::uint32, 0xABCDFFFFFFFFULL) == "4294967295");
    CHECK(scalar(dfx::dtype::boolean, 2) == "true");
    CHECK(scalar(dfx::dtype::boolean, 0) == "false");
    CHECK(scalar(dfx::dtype::int64, ~0ULL) == "-1");
    CHECK(scalar(dfx::dtype::uint64, ~0ULL) == "18446744073709551615");
    CHECK(scalar(dfx::dtype::int8, 0xFF) == "255");
    CHECK(scalar(dfx::dtype::float16, 0x3C00) == "15360");  // not decoded, as the reference
}

TEST_CASE("an entry: ambiguous flag, MIX func ids, a lost payload written as bin 0/0 overwritten") {
    dfx::args_dump_entry e;
    e.record.task_id = 0x100000002ULL;
    e.record.func_ids[0] = 11;
    e.record.func_ids[1] = 12;
    e.record.func_count = 2;
    e.record.arg_index = 1;
    e.record.role = dfx::dump_role::inout;
    e.record.stage = dfx::dump_stage::after_completion;
    e.record.dtype = static_cast<std::uint8_t>(dfx::dtype::bfloat16);
    e.record.ndims = 1;
    e.record.shape[0] = 8;
    e.record.strides[0] = 1;
    e.record.flags = dfx::dump_flag_ambiguous;
    e.record.payload_size = 16;
    e.bin_offset = 4096;  // ignored: nothing of it is in args.bin
    e.overwritten = true;
    CHECK(to_string([&](dfx::text_writer& out) { dfx::write_args_dump_entry(out, e); }) ==
          R"({"task_id": "0x0000000100000002", "func_id": [11, 12], "arg_index": 1, "role": "inout", "stage": "after_completion", "kind": "tensor", "dtype": "BFLOAT16", "is_contiguous": true, "shape": [8], "strides": [1], "start_offset": 0, "numel": 8, "arg_index_ambiguous": true, "bin_offset": 0, "bin_size": 0, "truncated": false, "overwritten": true})");
}

namespace {

struct chunk_spec {
    std::uint64_t batch, batch_size, offset;
    std::uint32_t size;
    char fill;
};
chunk_spec chunk(std::uint64_t batch, std::uint64_t batch_size, std::uint64_t offset, std::uint32_t size, char fill) {
    return {batch, batch_size, offset, size, fill};
}

// One collected buffer of chunks, packed as a producer writes them.
struct packed_buffer {
    std::vector<std::byte> bytes;
    std::uint32_t count = 0;

    packed_buffer(std::initializer_list<chunk_spec> chunks) : packed_buffer(std::vector<chunk_spec>(chunks)) {}
    explicit packed_buffer(const std::vector<chunk_spec>& chunks) {
        for (const chunk_spec& c : chunks) {
            const std::size_t at = bytes.size();
            bytes.resize(at + dfx::packed_stride<dfx::args_payload_chunk>(c.size));
            auto* h = ::new (static_cast<void*>(bytes.data() + at)) dfx::args_payload_chunk{};
            h->batch = c.batch;
            h->batch_size = c.batch_size;
            h->offset = c.offset;
            h->size = c.size;
            std::memset(h->data(), c.fill, c.size);
            ++count;
        }
    }
    dfx::packed_records<dfx::args_payload_chunk> records() const {
        return {bytes.data(), count, static_cast<std::uint32_t>(bytes.size())};
    }
};

}  // namespace

TEST_CASE("args.bin: batches get contiguous ranges in arrival order; a missing chunk fails only what it covers") {
    const auto dir = dump_test::fresh_prefix("bin_stream");
    constexpr std::uint32_t full = dfx::args_payload_chunk_bytes;
    std::uint64_t p0_at = 0, b0_at = 0, b1_at = 0;
    {
        dfx::args_bin_stream bin(dir / "args.bin", 2);
        // Producer 0, batch 0: 3 chunks, the middle one lost in transport.
        const packed_buffer p0 = {chunk(0, 2 * full + 10, 0, full, 'a'),
                                                         chunk(0, 2 * full + 10, 2 * full, 10, 'c')};
        // Producer 1, batches 5 and 6 (numbers are the producer's own chunk counts).
        const packed_buffer p1 = {chunk(5, 100, 0, 100, 'x'), chunk(6, 50, 0, 50, 'y')};
        bin.consume(1, p1.records());
        bin.consume(0, p0.records());
        CHECK(bin.bytes_reserved() == 150 + 2 * full + 10);
        CHECK(bin.bytes_written() == 150 + full + 10);
        CHECK(bin.error().empty());

        // Producer 1 arrived first: its batches come first in the file.
        REQUIRE(bin.locate(1, 5, 0, 100));
        b0_at = *bin.locate(1, 5, 0, 100);
        b1_at = *bin.locate(1, 6, 0, 50);
        CHECK(b0_at == 0);
        CHECK(b1_at == 100);
        p0_at = *bin.locate(0, 0, 0, full);
        CHECK(p0_at == 150);
        CHECK(bin.locate(0, 0, 100, full - 100) == p0_at + 100);          // inside the first chunk
        CHECK_FALSE(bin.locate(0, 0, full - 1, 2).has_value());            // crosses into the lost chunk
        CHECK_FALSE(bin.locate(0, 0, full + 5, 10).has_value());           // inside the lost chunk
        CHECK(bin.locate(0, 0, 2 * full, 10) == p0_at + 2 * full);         // after it
        CHECK_FALSE(bin.locate(0, 1, 0, 1).has_value());                   // a batch that never arrived
        CHECK_FALSE(bin.locate(1, 5, 90, 20).has_value());                 // past the batch's end
        CHECK(bin.locate(1, 5, 7, 0) == b0_at + 7);                        // empty payload: nothing to miss

        // A chunk that contradicts its batch is refused and reported.
        const packed_buffer bad = {chunk(6, 999, 0, 10, 'z')};
        bin.consume(1, bad.records());
        CHECK(bin.error().find("does not fit its batch") != std::string::npos);
        bin.commit();
    }
    const std::string bytes = dump_test::read_file(dir / "args.bin");
    REQUIRE(bytes.size() == 150 + 2 * full + 10);
    CHECK(bytes.substr(0, 100) == std::string(100, 'x'));
    CHECK(bytes.substr(100, 50) == std::string(50, 'y'));
    CHECK(bytes.substr(150, full) == std::string(full, 'a'));
    CHECK(bytes.substr(150 + full, full) == std::string(full, '\0'));  // the lost chunk's range reads as zeros
    CHECK(bytes.substr(150 + 2 * full, 10) == std::string(10, 'c'));
}

TEST_CASE("args.bin: a buffer of consecutive batches goes out as one run; a batch missing its start breaks it") {
    const auto dir = dump_test::fresh_prefix("bin_stream_runs");
    constexpr std::uint32_t full = dfx::args_payload_chunk_bytes;
    {
        dfx::args_bin_stream bin(dir / "args.bin", 1);
        // One collected buffer: batch 0 (one chunk), batch 1 whose first chunk was
        // dropped (its second arrives), batch 3 (two chunks), batch 5 (one chunk).
        const packed_buffer buffer = {
            chunk(0, 30, 0, 30, 'a'), chunk(1, full + 20, full, 20, 'b'), chunk(3, full + 5, 0, full, 'c'),
            chunk(3, full + 5, full, 5, 'd'), chunk(5, 7, 0, 7, 'e')};
        bin.consume(0, buffer.records());
        CHECK(bin.error().empty());
        CHECK(bin.bytes_reserved() == 30 + (full + 20) + (full + 5) + 7);
        CHECK(bin.bytes_written() == 30 + 20 + full + 5 + 7);
        CHECK(bin.locate(0, 0, 0, 30) == 0);
        CHECK_FALSE(bin.locate(0, 1, 0, 1).has_value());  // the dropped chunk's range
        CHECK(bin.locate(0, 1, full, 20) == 30 + full);
        CHECK(bin.locate(0, 3, 0, full + 5) == 30 + full + 20);
        CHECK(bin.locate(0, 5, 0, 7) == 30 + full + 20 + full + 5);
        bin.commit();
    }
    const std::string bytes = dump_test::read_file(dir / "args.bin");
    REQUIRE(bytes.size() == 30 + (full + 20) + (full + 5) + 7);
    CHECK(bytes.substr(0, 30) == std::string(30, 'a'));
    CHECK(bytes.substr(30, full) == std::string(full, '\0'));
    CHECK(bytes.substr(30 + full, 20) == std::string(20, 'b'));
    CHECK(bytes.substr(50 + full, full) == std::string(full, 'c'));
    CHECK(bytes.substr(50 + 2 * full, 5) == std::string(5, 'd'));
    CHECK(bytes.substr(55 + 2 * full, 7) == std::string(7, 'e'));
}

TEST_CASE("args.bin: tens of thousands of batches from two producers, buffer by buffer, land where locate says") {
    // Far more batches than the first block of a producer's batch list holds,
    // the two lists growing in turn (and within a buffer's run of chunks).
    // Past the first block: a batch cut short (its last chunk never comes)
    // and one missing its middle chunk (its written ranges kept apart).
    const auto dir = dump_test::fresh_prefix("bin_stream_many");
    constexpr std::uint32_t full = dfx::args_payload_chunk_bytes;
    constexpr std::uint64_t batches = 20'000, per_buffer = 500, cut_short = 12'345, holed = 15'001;
    const auto size_of = [](std::uint64_t b) { return static_cast<std::uint32_t>(1 + b % 97); };
    const auto fill_of = [](std::uint32_t producer, std::uint64_t b) { return static_cast<char>('a' + (b + producer) % 26); };
    std::vector<std::uint64_t> at[2];
    std::uint64_t holed_at = 0;
    {
        dfx::args_bin_stream bin(dir / "args.bin", 2);
        for (std::uint64_t first = 0; first < batches; first += per_buffer) {
            for (std::uint32_t producer : {0u, 1u}) {
                std::vector<chunk_spec> chunks;
                for (std::uint64_t b = first; b < first + per_buffer; ++b) {
                    const std::uint32_t size = size_of(b);
                    const char fill = fill_of(producer, b);
                    if (producer == 1 && b == cut_short) {
                        chunks.push_back(chunk(b, size + 100, 0, size, fill));
                    } else if (producer == 0 && b == holed) {
                        chunks.push_back(chunk(b, 2 * full + size, 0, full, fill));
                        chunks.push_back(chunk(b, 2 * full + size, 2 * full, size, fill));
                    } else {
                        chunks.push_back(chunk(b, size, 0, size, fill));
                    }
                }
                bin.consume(producer, packed_buffer(chunks).records());
            }
        }
        REQUIRE(bin.error().empty());
        for (std::uint32_t producer : {0u, 1u}) {
            for (std::uint64_t b = 0; b < batches; ++b) {
                const auto where = bin.locate(producer, b, 0, producer == 0 && b == holed ? full : size_of(b));
                REQUIRE(where.has_value());
                at[producer].push_back(*where);
            }
        }
        CHECK_FALSE(bin.locate(1, cut_short, 0, size_of(cut_short) + 1).has_value());  // into what never came
        holed_at = at[0][holed];
        CHECK_FALSE(bin.locate(0, holed, full - 1, 2).has_value());  // into the missing chunk
        CHECK(bin.locate(0, holed, 2 * full, size_of(holed)) == holed_at + 2 * full);  // the chunk after it
        CHECK_FALSE(bin.locate(0, batches, 0, 1).has_value());  // never sent
        bin.commit();
    }
    const std::string bytes = dump_test::read_file(dir / "args.bin");
    std::uint64_t mismatched = 0;
    for (std::uint32_t producer : {0u, 1u})
        for (std::uint64_t b = 0; b < batches; ++b) {
            const std::uint32_t size = producer == 0 && b == holed ? full : size_of(b);
            mismatched += bytes.compare(at[producer][b], size, std::string(size, fill_of(producer, b))) != 0;
        }
    CHECK(mismatched == 0);
    CHECK(bytes.compare(holed_at + full, full, std::string(full, '\0')) == 0);  // the missing chunk reads as zeros
    CHECK(bytes.compare(holed_at + 2 * full, size_of(holed), std::string(size_of(holed), fill_of(0, holed))) == 0);
}

TEST_CASE("args.bin: a malformed packed buffer is reported and nothing past the bad chunk is read") {
    const auto dir = dump_test::fresh_prefix("bin_stream_malformed");
    dfx::args_bin_stream bin(dir / "args.bin", 1);
    SUBCASE("the count promises more chunks than the bytes hold") {
        packed_buffer buffer = {chunk(0, 30, 0, 30, 'a'), chunk(1, 20, 0, 20, 'b')};
        auto records = buffer.records();
        records.size = dfx::packed_stride<dfx::args_payload_chunk>(30) + 32;  // the second chunk cut short
        bin.consume(0, records);
    }
    SUBCASE("a chunk claims more payload than a slot holds") {
        packed_buffer buffer = {chunk(0, 30, 0, 30, 'a'), chunk(1, 20, 0, 20, 'b')};
        buffer.bytes.resize(buffer.bytes.size() + 8192);  // the bytes are there: only the slot bound catches it
        auto* second = std::launder(reinterpret_cast<dfx::args_payload_chunk*>(
            buffer.bytes.data() + dfx::packed_stride<dfx::args_payload_chunk>(30)));
        second->size = dfx::args_payload_chunk_bytes + 1;
        bin.consume(0, buffer.records());
    }
    CHECK(bin.error().find("is malformed") != std::string::npos);
    CHECK(bin.locate(0, 0, 0, 30) == 0);                 // the chunk before it is in
    CHECK_FALSE(bin.locate(0, 1, 0, 20).has_value());     // the bad one is not
    CHECK(bin.bytes_written() == 30);
}

TEST_CASE("args.bin: an uncommitted file is removed, never left looking complete") {
    const auto dir = dump_test::fresh_prefix("bin_discard");
    {
        dfx::args_bin_stream bin(dir / "args.bin", 1);
        const packed_buffer c = {chunk(0, 10, 0, 10, 'q')};
        bin.consume(0, c.records());
    }
    CHECK(std::filesystem::is_empty(dir));
}
