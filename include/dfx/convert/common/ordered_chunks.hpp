// ordered_chunks: formats a long run of items on two threads, in item order.
//
// A swimlane trace is gigabytes of events, and formatting them is the larger
// part of a conversion. The items of a section (tasks, scheduler records,
// dependency edges) are cut into chunks; the calling thread and one helper
// take chunks in turn, each formats its chunk into a block of its own, and
// the file writer puts the blocks into the file in chunk order, whichever
// finishes first. The output is byte for byte what one thread would write.
//
// Some events draw sequence numbers (flow ids, marker event ids). A counting
// pass on the calling thread first asks each item how many it draws, so each
// chunk knows where its numbers start; the formatter then checks that a
// chunk drew exactly what its items said, so the two can never drift apart
// silently.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/json_writer.hpp"

namespace dfx::convert {

// One chunk of items: [begin, end), drawing numbers from `first_number` on.
struct item_chunk {
    std::size_t begin;
    std::size_t end;
    std::int64_t first_number;
    std::int64_t numbers;  // how many its items said they draw
};

// Items [0, n) cut into chunks of `grain`, each knowing where its numbers
// start: `numbers_of(i)` -> how many item i draws (called once per item, in
// order). Numbers start at `first_number`, which is set past the last one.
template <class NumbersOf>
std::vector<item_chunk> numbered_chunks(std::size_t n, std::size_t grain, std::int64_t& first_number,
                                        NumbersOf&& numbers_of) {
    std::vector<item_chunk> chunks;
    for (std::size_t begin = 0; begin < n; begin += grain) {
        item_chunk c{begin, std::min(n, begin + grain), first_number, 0};
        for (std::size_t i = c.begin; i < c.end; ++i) c.numbers += static_cast<std::int64_t>(numbers_of(i));
        first_number += c.numbers;
        chunks.push_back(c);
    }
    return chunks;
}

// Formats items [0, n) in chunks of `grain` into `out`, after everything
// appended so far. `numbers_of(i)` -> how many sequence numbers item i draws
// (called once per item, in order, on this thread); `format(chunk, buffer,
// number)` writes the chunk's events and advances `number` (starting at the
// chunk's first) once per number drawn, and returns a Stats; the Stats of
// all chunks are summed with +=. Numbers start at `first_number`; returns the
// summed Stats and sets `first_number` past the last number drawn.
//
// An exception from `format` stops the section: the remaining chunks are
// handed over empty (the file is never committed then), and the first
// exception is rethrown here once both threads are done.
template <class Stats, class NumbersOf, class Format>
Stats format_in_order(json_file_writer& out, std::size_t n, std::size_t grain, std::int64_t& first_number,
                      NumbersOf&& numbers_of, Format&& format) {
    const std::vector<item_chunk> chunks = numbered_chunks(n, grain, first_number, numbers_of);
    const std::uint64_t first_seq = out.reserve_parts(chunks.size());
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex error_mutex;

    auto work = [&](Stats& stats) {
        for (;;) {
            // The block is taken before a chunk is claimed: a thread holding
            // the oldest unwritten chunk always has a block to finish it in.
            json_buffer block = out.fresh_block();
            const std::size_t k = next.fetch_add(1);
            if (k >= chunks.size()) {
                out.give_back(std::move(block));
                return;
            }
            const item_chunk& c = chunks[k];
            if (!failed.load()) {
                try {
                    std::int64_t number = c.first_number;
                    stats += format(c, block, number);
                    if (number != c.first_number + c.numbers) {
                        throw std::logic_error(fmt::format("ordered_chunks: items {}..{} said they draw {} numbers, "
                                                           "their events drew {}",
                                                           c.begin, c.end, c.numbers, number - c.first_number));
                    }
                } catch (...) {
                    std::lock_guard lock(error_mutex);
                    if (!error) error = std::current_exception();
                    failed = true;
                }
            }
            // Handed over even when empty: the file writer waits for every
            // number in turn. A write error surfaces at commit().
            if (out.hand_over(first_seq + k, std::move(block)) != 0) failed = true;
        }
    };
    Stats mine{}, helpers{};
    if (chunks.size() > 1) {
        std::thread helper([&] { work(helpers); });
        work(mine);
        helper.join();
    } else {
        work(mine);
    }
    if (error) std::rethrow_exception(error);
    mine += helpers;
    return mine;
}

// The same for a section that draws no numbers and counts nothing:
// `format(chunk, buffer)` writes the chunk's items.
template <class Format>
void format_in_order(json_file_writer& out, std::size_t n, std::size_t grain, Format&& format) {
    struct nothing {
        nothing& operator+=(const nothing&) { return *this; }
    };
    std::int64_t no_numbers = 0;
    format_in_order<nothing>(out, n, grain, no_numbers, [](std::size_t) { return 0; },
                             [&](const item_chunk& c, json_buffer& b, std::int64_t&) {
                                 format(c, b);
                                 return nothing{};
                             });
}

}  // namespace dfx::convert
