// perfetto_fields: the vocabulary of the Perfetto protobuf backend
// (perfetto_packets.hpp): Perfetto's field numbers (protos/perfetto/trace/:
// trace_packet.proto, clock_snapshot.proto, track_event/{track_event,
// track_descriptor,process_descriptor,thread_descriptor,counter_descriptor,
// debug_annotation}.proto, interned_data/interned_data.proto; stable by
// protobuf's contract), and the two shapes the trace sections hand it: a
// slice (pf_slice) and one of its arguments (pf_arg).
//
//   w.varint(pf::event::type, pf::event::type_slice_begin);
//   ev.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id, pf_slice::inline_text},
//            {pf_arg::of("taskId", 7), pf_arg::of_us("kernel-duration-us", 1.5)});
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dfx::convert::swimlane::trace {


// ---- field numbers (Perfetto's protos) ----
namespace pf {
inline constexpr std::uint32_t trace_packet = 1;  // Trace.packet

namespace packet {  // TracePacket
inline constexpr std::uint32_t clock_snapshot = 6;
inline constexpr std::uint32_t timestamp = 8;
inline constexpr std::uint32_t trusted_packet_sequence_id = 10;
inline constexpr std::uint32_t track_event = 11;
inline constexpr std::uint32_t interned_data = 12;
inline constexpr std::uint32_t sequence_flags = 13;
inline constexpr std::uint32_t trace_packet_defaults = 59;
inline constexpr std::uint32_t track_descriptor = 60;
inline constexpr std::uint64_t seq_incremental_state_cleared = 1;
inline constexpr std::uint64_t seq_needs_incremental_state = 2;
}  // namespace packet

namespace clock {  // ClockSnapshot, ClockSnapshot.Clock
inline constexpr std::uint32_t clocks = 1;
inline constexpr std::uint32_t primary_trace_clock = 2;
inline constexpr std::uint32_t clock_id = 1;
inline constexpr std::uint32_t timestamp = 2;
inline constexpr std::uint32_t is_incremental = 3;
inline constexpr std::uint64_t builtin_boottime = 6;
inline constexpr std::uint64_t sequence_clock = 64;  // 64..127: scoped to the sequence
}  // namespace clock

namespace defaults {  // TracePacketDefaults
inline constexpr std::uint32_t timestamp_clock_id = 58;
}

namespace track {  // TrackDescriptor
inline constexpr std::uint32_t uuid = 1;
inline constexpr std::uint32_t name = 2;
inline constexpr std::uint32_t process = 3;
inline constexpr std::uint32_t thread = 4;
inline constexpr std::uint32_t parent_uuid = 5;
inline constexpr std::uint32_t counter = 8;
}  // namespace track
namespace process {  // ProcessDescriptor
inline constexpr std::uint32_t pid = 1;
inline constexpr std::uint32_t process_name = 6;
}  // namespace process
namespace thread {  // ThreadDescriptor
inline constexpr std::uint32_t pid = 1;
inline constexpr std::uint32_t tid = 2;
inline constexpr std::uint32_t thread_name = 5;
}  // namespace thread

namespace event {  // TrackEvent
inline constexpr std::uint32_t category_iids = 3;
inline constexpr std::uint32_t debug_annotations = 4;
inline constexpr std::uint32_t type = 9;
inline constexpr std::uint32_t name_iid = 10;
inline constexpr std::uint32_t name = 23;
inline constexpr std::uint32_t track_uuid = 11;
inline constexpr std::uint32_t extra_counter_values = 12;       // repeated int64
inline constexpr std::uint32_t counter_value = 30;
inline constexpr std::uint32_t extra_counter_track_uuids = 31;  // repeated uint64
inline constexpr std::uint32_t flow_ids = 47;              // repeated fixed64
inline constexpr std::uint32_t terminating_flow_ids = 48;  // repeated fixed64
inline constexpr std::uint64_t type_slice_begin = 1;
inline constexpr std::uint64_t type_slice_end = 2;
inline constexpr std::uint64_t type_instant = 3;
inline constexpr std::uint64_t type_counter = 4;
}  // namespace event

namespace annotation {  // DebugAnnotation
inline constexpr std::uint32_t name_iid = 1;
inline constexpr std::uint32_t int_value = 4;
inline constexpr std::uint32_t double_value = 5;
inline constexpr std::uint32_t string_value = 6;
}  // namespace annotation

namespace interned {  // InternedData; EventCategory, EventName, DebugAnnotationName are {iid = 1, name = 2}
inline constexpr std::uint32_t event_categories = 1;
inline constexpr std::uint32_t event_names = 2;
inline constexpr std::uint32_t debug_annotation_names = 3;
inline constexpr std::uint32_t iid = 1;
inline constexpr std::uint32_t name = 2;
}  // namespace interned
}  // namespace pf

// One argument of a slice: an integer, a double or a string.
struct pf_arg {
    enum kind_t : std::uint8_t { integer, real, text };
    std::string_view name;
    kind_t kind = integer;
    std::int64_t i = 0;
    double d = 0;
    std::string_view s{};
    static pf_arg of(std::string_view n, std::int64_t v) { return {n, integer, v, 0, {}}; }
    static pf_arg of_us(std::string_view n, double v) { return {n, real, 0, v, {}}; }
    static pf_arg of_text(std::string_view n, std::string_view v) { return {n, text, 0, 0, v}; }
};

// A counter point: its track's name (in its process) and its value.
using pf_point = std::pair<std::string_view, std::int64_t>;

// A slice as the sections describe it (times in µs, as in the JSON view).
struct pf_slice {
    std::string_view cat;
    std::string_view name;
    int pid;
    std::int64_t tid;
    double ts_us;
    double dur_us;
    std::int64_t event_id = -1;  // the JSON "id" flows bind to, or -1
    // A name shared by many slices (a phase, a kernel) is interned: written
    // once, then 1-3 bytes per slice. A name (nearly) unique to its slice,
    // like a task's label, is written inline: interning it would cost a
    // table entry per task in memory and more bytes in the file.
    enum name_mode : std::uint8_t { interned, inline_text } name_kind = interned;
};

// The texts a trace interns: a slice's category, its name (unless inline)
// and its args' names.
enum class pf_text : std::uint8_t { category, name, arg_name };

class perfetto_begins;

// What event_sink hands the protobuf backend: the same calls in both of its
// passes (perfetto_packets.hpp), so one event_sink serves both.
class pf_backend {
public:
    pf_backend() = default;
    pf_backend(const pf_backend&) = delete;
    pf_backend& operator=(const pf_backend&) = delete;
    virtual ~pf_backend() = default;

    virtual void process_name(int pid, std::string_view name) = 0;
    virtual void thread_name(int pid, std::int64_t tid, std::string_view name) = 0;
    virtual void slice_span(const pf_slice& s, std::span<const pf_arg> args) = 0;
    // A flow endpoint ('s' starts flow `id`, 'f' ends it); bind_id < 0: the
    // enclosing slice of (pid, tid) at ts.
    virtual void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) = 0;
    // A point of the counter track `name` of process `pid`.
    virtual void counter(int pid, std::string_view name, double ts_us, std::int64_t value) = 0;
    // Points of several counter tracks at one time (one packet).
    virtual void counters_span(int pid, std::span<const pf_point> points, double ts_us) = 0;
    // The first pass's flow endpoints, placed on the thread that runs their
    // chunk (perfetto_skeletons.hpp): once every slice is in, where an
    // endpoint lands (its track and the slice it binds to) is a lookup that
    // changes nothing. `fingers` is the caller's (where its last searches
    // landed). False if it cannot be placed so: it is then handed in as a
    // flow() and placed by the backend's own thread.
    struct flow_place {
        std::uint32_t track = 0, slice = 0;
    };
    [[nodiscard]] virtual bool place_flow(int /*pid*/, std::int64_t /*tid*/, double /*ts_us*/,
                                          std::int64_t /*bind_id*/, std::vector<std::uint32_t>& /*fingers*/,
                                          flow_place& /*place*/) const {
        return false;
    }
    // A flow endpoint that place_flow() placed, handed in in its turn.
    virtual void placed_flow(std::int64_t /*id*/, char /*ph*/, double /*ts_us*/, flow_place /*place*/) {
        throw std::logic_error("pf_backend: a placed flow where none can be placed");
    }
    // True while only slices' skeletons, their interned texts, counters'
    // tracks and flow endpoints matter (the first pass): the sections'
    // chunks may then be recorded on other threads and handed in later
    // (perfetto_skeletons.hpp).
    [[nodiscard]] virtual bool wants_skeletons_only() const noexcept { return false; }
    // The first pass: a text the slices of a recorded chunk intern, in the
    // order they first used it; and, once a section's chunks are all handed
    // in, how many slices each one had (the second pass encodes each chunk
    // apart and needs to know where its slices start).
    virtual void intern_text(pf_text /*kind*/, std::string_view /*text*/) {}
    // A recorded slice: its thread, times and event id (its texts were
    // handed in apart, by intern_text()).
    virtual void slice_skeleton(int pid, std::int64_t tid, double ts_us, double dur_us, std::int64_t event_id) {
        slice_span(pf_slice{{}, {}, pid, tid, ts_us, dur_us, event_id, pf_slice::inline_text}, {});
    }
    virtual void section_chunks(std::span<const std::uint32_t> /*slices_per_chunk*/) {}
    // The second pass, whose sections' chunks are encoded on the threads
    // that run them (perfetto_begins.hpp); null for any other backend.
    [[nodiscard]] virtual perfetto_begins* second_pass() noexcept { return nullptr; }
    // A slice and its args (a vector, an array or a braced list of pf_arg).
    template <class Args = std::initializer_list<pf_arg>>
    void slice(const pf_slice& s, const Args& args = {}) {
        slice_span(s, std::span<const pf_arg>(std::data(args), std::size(args)));
    }
    void counters(int pid, std::initializer_list<pf_point> points, double ts_us) {
        counters_span(pid, std::span<const pf_point>(points.begin(), points.size()), ts_us);
    }
};

// What a section's chunk hands a pass, recorded to be handed in later
// (perfetto_skeletons.hpp) or encoded (perfetto_begins.hpp). Not a chunk's calls: the
// sections name processes and threads outside their chunks.
class pf_chunk_recorder : public pf_backend {
public:
    void process_name(int, std::string_view) final { misplaced("a process name"); }
    void thread_name(int, std::int64_t, std::string_view) final { misplaced("a thread name"); }

private:
    [[noreturn]] static void misplaced(const char* what) {
        throw std::logic_error(std::string("perfetto_trace: ") + what + " inside a chunk of a slice section");
    }
};

}  // namespace dfx::convert::swimlane::trace
