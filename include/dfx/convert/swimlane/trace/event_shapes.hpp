// event_shapes: the JSON shapes of Chrome trace events as the swimlane trace
// writes them: the "{"traceEvents": [...]}" envelope, metadata (process /
// thread names and sort indices), flow endpoints and complete ("X") slices.
// Field order and number formats are the reference converter's, byte for
// byte, so everything is written straight into the output buffer with no
// temporary strings.
//
// event_sink has two backends: that JSON, or (constructed with a
// pf_backend) Perfetto's protobuf (perfetto_packets.hpp). Metadata and
// flows go to either through the same calls; a section writing a slice or a
// counter asks `ev.protobuf()` and then calls ev.slice() / ev.counter()
// with the same facts instead of formatting JSON.
//
//   event_sink ev(file);                            // writes the opening
//   ev.process_name(layout::worker_view_pid, "Worker View");
//   auto& o = ev.next();                            // one event, comma-separated
//   begin_x(o); o.append(R"("taskId": 7)");         // the slice's args ...
//   x_tail(o, "event", "", -1, "name", pid, tid, ts, dur);  // ... and the rest
//   ev.close(metadata_json);
//
//   event_sink pb_ev(file, &perfetto);              // the protobuf backend
//   if (pb_ev.protobuf()) pb_ev.slice({"event", name, pid, tid, ts, dur, id}, args);
//
// With a window_gate (time_window.hpp) the sink writes only what the window
// keeps, for both backends, here and nowhere else: a JSON slice asks for its
// buffer with next_slice(ts, dur) (an event outside is formatted into a
// scratch buffer and dropped), counter points go through counter_json() /
// counter() / counters(), flows through flow(). Without one, every call
// writes exactly what it did before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "dfx/convert/common/json_buffer.hpp"
#include "dfx/convert/swimlane/time_window.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"

namespace dfx::convert::swimlane::trace {

// The event stream: "{"traceEvents": [" ... "]}", or a part of it formatted
// on another thread (every event of a part follows an earlier one).
class event_sink {
public:
    struct part_t {};
    static constexpr part_t part{};
    explicit event_sink(json_buffer& w) : w_(w) { w_.append("{\"traceEvents\": [\n"); }
    event_sink(json_buffer& w, part_t) : w_(w), comma_(true) {}
    // The protobuf backend: everything goes to `pb`, nothing to `w`.
    // `gate`: the window to keep, or null for everything.
    event_sink(json_buffer& w, pf_backend* pb, window_gate* gate = nullptr) : w_(w), pb_(pb), gate_(gate) {
        if (!pb_) w_.append("{\"traceEvents\": [\n");
    }
    [[nodiscard]] pf_backend* protobuf() const noexcept { return pb_; }
    [[nodiscard]] window_gate* window() const noexcept { return gate_; }
    // Protobuf backend only: a slice and its args (pf_arg), a counter point.
    template <class Args>
    void slice(const pf_slice& s, const Args& args) {
        if (!keeps_slice(s.ts_us, s.dur_us)) return;
        ++count_;
        pb_->slice(s, args);
    }
    void slice(const pf_slice& s, std::initializer_list<pf_arg> args) {
        if (!keeps_slice(s.ts_us, s.dur_us)) return;
        ++count_;
        pb_->slice(s, args);
    }
    void counter(int pid, std::string_view name, double ts, std::int64_t value) {
        if (gate_) return counters(pid, {{name, value}}, ts);
        ++count_;
        pb_->counter(pid, name, ts, value);
    }
    void counters(int pid, std::initializer_list<std::pair<std::string_view, std::int64_t>> points, double ts) {
        if (gate_) {
            window_gate::counter_track* t = nullptr;
            switch (gate_->point(std::to_string(pid) + ' ' + std::string(points.begin()->first), ts, t)) {
            case window_gate::verdict::drop: return;
            case window_gate::verdict::hold:
                t->pid = pid;
                t->values.assign(points.begin(), points.end());
                return;
            case window_gate::verdict::write: break;
            }
        }
        ++count_;
        pb_->counters(pid, points, ts);
    }
    // JSON backend: a counter point of track `key` at `ts`, written by
    // `format(buffer, ts)`; with a window, the point in force at START is
    // formatted again with ts = START.
    template <class Format>
    void counter_json(std::string_view key, double ts, Format&& format) {
        if (gate_) {
            window_gate::counter_track* t = nullptr;
            switch (gate_->point(std::string(key), ts, t)) {
            case window_gate::verdict::drop: return;
            case window_gate::verdict::hold: {
                json_buffer& o = gate_->discard();
                format(o, gate_->window.start_us);
                t->json.assign(o.view());
                return;
            }
            case window_gate::verdict::write: break;
            }
        }
        format(next(), ts);
    }
    // The buffer of a JSON slice at [ts, ts + dur]: the output's, or with a
    // window that the slice misses, a scratch buffer that is dropped.
    json_buffer& next_slice(double ts, double dur) { return keeps_slice(ts, dur) ? next() : gate_->discard(); }
    json_buffer& next() {
        if (comma_) w_.append(",\n");
        comma_ = true;
        ++count_;
        return w_;
    }
    [[nodiscard]] std::size_t count() const noexcept { return count_; }
    void add_count(std::size_t events) noexcept { count_ += events; }
    void close(std::string_view metadata_json) {
        // Each counter track's value in force at START.
        if (gate_) gate_->flush_held([&](const window_gate::counter_track& t) { write_held(t); });
        if (pb_) return;  // the caller finishes the protobuf trace
        w_.append("\n]");
        if (!metadata_json.empty()) {
            w_.append(", \"metadata\": ");
            w_.append(metadata_json);
        }
        w_.append("}\n");
    }

    // ---- metadata ----
    void process_name(int pid, std::string_view name) {
        if (pb_) {
            ++count_;
            return pb_->process_name(pid, name);
        }
        auto& o = next();
        o.append(R"({"args": {"name": )");
        o.append_string(name);
        o.append(R"(}, "cat": "__metadata", "name": "process_name", "ph": "M", "pid": )");
        o.append_int(pid);
        o.push_back('}');
    }
    void process_sort(int pid, int index) {
        if (pb_) return (void)++count_;  // not carried: the UI orders tracks
        auto& o = next();
        o.append(R"({"args": {"sort_index": )");
        o.append_int(index);
        o.append(R"(}, "cat": "__metadata", "name": "process_sort_index", "ph": "M", "pid": )");
        o.append_int(pid);
        o.push_back('}');
    }
    void thread_name(int pid, std::int64_t tid, std::string_view name) {
        if (pb_) {
            ++count_;
            return pb_->thread_name(pid, tid, name);
        }
        auto& o = next();
        o.append(R"({"args": {"name": )");
        o.append_string(name);
        o.append(R"(}, "cat": "__metadata", "name": "thread_name", "ph": "M", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.push_back('}');
    }
    void thread_sort(int pid, std::int64_t tid, int index) {
        if (pb_) return (void)++count_;
        auto& o = next();
        o.append(R"({"args": {"sort_index": )");
        o.append_int(index);
        o.append(R"(}, "cat": "__metadata", "name": "thread_sort_index", "ph": "M", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.push_back('}');
    }

    // ---- flows ----
    // A flow endpoint. bind_id < 0: none; counts < 0: not written.
    // With a window, a start waits for its end (they come in pairs) and the
    // two are written when both lie in the window.
    void flow(std::int64_t id, std::string_view name, char ph, int pid, std::int64_t tid, double ts,
              std::int64_t bind_id = -1, std::int64_t input_count = -1, std::int64_t output_count = -1) {
        if (!gate_) return write_flow(id, name, ph, pid, tid, ts, bind_id, input_count, output_count);
        if (ph == 's') {
            gate_->waiting = window_gate::pending_flow{id, ts, name, pid, tid, bind_id, input_count, output_count};
            return;
        }
        const auto start = std::exchange(gate_->waiting, std::nullopt);
        if (!start || start->id != id || !gate_->window.holds(start->ts) || !gate_->window.holds(ts)) return;
        ++gate_->flows_kept;
        write_flow(start->id, start->name, 's', start->pid, start->tid, start->ts, start->bind_id, start->input_count,
                   start->output_count);
        write_flow(id, name, ph, pid, tid, ts, bind_id, input_count, output_count);
    }

private:
    bool keeps_slice(double ts, double dur) {
        if (!gate_) return true;
        if (!gate_->window.overlaps(ts, dur)) return false;
        ++gate_->slices_kept;
        return true;
    }
    void write_held(const window_gate::counter_track& t) {
        const double at = gate_->window.start_us;
        if (pb_) {
            for (const auto& [name, value] : t.values) pb_->counter(t.pid, name, at, value);
            ++count_;
            return;
        }
        next().append(t.json);
    }
    void write_flow(std::int64_t id, std::string_view name, char ph, int pid, std::int64_t tid, double ts,
                    std::int64_t bind_id, std::int64_t input_count, std::int64_t output_count) {
        if (pb_) {
            ++count_;
            return pb_->flow(id, ph, pid, tid, ts, bind_id);
        }
        auto& o = next();
        o.append(R"({"cat": "flow", "id": )");
        o.append_int(id);
        o.append(R"(, "name": ")");
        o.append(name);  // flow names are fixed ASCII / UTF-8 without quotes
        o.append(ph == 's' ? R"(", "ph": "s", "pid": )" : R"(", "ph": "f", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.append(R"(, "ts": )");
        o.append_us(ts);
        if (ph == 'f') o.append(R"(, "bp": "e")");
        if (input_count >= 0) {
            o.append(R"(, "input_task_count": )");
            o.append_int(input_count);
            o.append(R"(, "output_task_count": )");
            o.append_int(output_count);
        }
        if (bind_id >= 0) {
            o.append(R"(, "bind_id": )");
            o.append_int(bind_id);
        }
        o.push_back('}');
    }

    json_buffer& w_;
    pf_backend* pb_ = nullptr;
    window_gate* gate_ = nullptr;
    bool comma_ = false;
    std::size_t count_ = 0;
};

// ---- complete ("X") slices: begin_x, the args, then x_tail ----
inline void begin_x(json_buffer& o) { o.append(R"({"args": {)"); }

// Closes the args object and writes the slice fields; `name` writes the
// (quoted) name. cat / cname are fixed ASCII names; id < 0: no "id".
template <class Name>
void x_tail_with(json_buffer& o, std::string_view cat, std::string_view cname, std::int64_t id, Name&& name, int pid,
                 std::int64_t tid, double ts, double dur) {
    o.append(R"(}, "cat": ")");
    o.append(cat);
    o.push_back('"');
    if (!cname.empty()) {
        o.append(R"(, "cname": ")");
        o.append(cname);
        o.push_back('"');
    }
    if (id >= 0) {
        o.append(R"(, "id": )");
        o.append_int(id);
    }
    o.append(R"(, "name": )");
    name();
    o.append(R"(, "ph": "X", "pid": )");
    o.append_int(pid);
    o.append(R"(, "tid": )");
    o.append_int(tid);
    o.append(R"(, "ts": )");
    o.append_us(ts);
    o.append(R"(, "dur": )");
    o.append_us(dur);
    o.push_back('}');
}
inline void x_tail(json_buffer& o, std::string_view cat, std::string_view cname, std::int64_t id,
                   std::string_view name, int pid, std::int64_t tid, double ts, double dur) {
    x_tail_with(o, cat, cname, id, [&] { o.append_string(name); }, pid, tid, ts, dur);
}

}  // namespace dfx::convert::swimlane::trace
