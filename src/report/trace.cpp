#include "report/trace.hpp"
#include "report/report_json.hpp"

#include "report/trace_layout.hpp"
#include "core/gzip_stream.hpp"
#include "execution/collective.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

namespace simgpt {
namespace {

using Role = TraceSlice::Role;

// Microseconds with three decimals, from whole nanoseconds: exact, and the same on every machine.
std::string micros(std::int64_t ns) {
  if (ns < 0)
    ns = 0;
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

// Streams events into `out`, one a line, separated by commas.
class EventWriter {
public:
  explicit EventWriter(std::ostream& out) : out_(out) {}
  ~EventWriter() { flush(); }
  template <typename... Args> void event(fmt::format_string<Args...> format, Args&&... args) {
    if (count_++ > 0)
      buffer_.append(std::string_view(",\n"));
    fmt::format_to(std::back_inserter(buffer_), format, std::forward<Args>(args)...);
    if (buffer_.size() > (1u << 16))
      flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

private:
  std::ostream& out_;
  fmt::memory_buffer buffer_;
  size_t count_ = 0;
};

// What the trace says of each GPU and layer beyond the task graph.
struct PlanIndex {
  std::vector<std::array<int, 3>> rank; // per GPU: stage, replica, tensor rank
  std::vector<int> first_layer;         // per virtual stage: its first layer in the model
  explicit PlanIndex(const ExecutionPlan& plan) : rank(gpu_ranks(plan)) {
    int layers = 0;
    for (const StageCost& c : plan.stages) {
      first_layer.push_back(layers);
      layers += c.layers;
    }
  }
  int stage_of(int gpu) const { return rank[static_cast<size_t>(gpu)][0]; }
};

void write_metadata(EventWriter& w, const TraceLayout& layout, const ExecutionPlan& plan, const PlanIndex& index) {
  for (int gpu : layout.gpus) {
    const auto& [s, d, r] = index.rank[static_cast<size_t>(gpu)];
    const std::string where = fmt::format("stage {}{}{}", s, plan.dp > 1 ? fmt::format(", replica {}", d) : "",
                                          plan.tp > 1 ? fmt::format(", tensor rank {}", r) : "");
    const int tid = layout.process_tids[static_cast<size_t>(gpu)];
    w.event(R"json({{"ph":"M","name":"process_name","pid":{},"tid":{},"args":{{"name":"GPU {} ({})"}}}})json", gpu,
            tid, gpu, where);
    w.event(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", gpu, tid, gpu);
  }
  for (const TraceTrack& track : layout.tracks) {
    w.event(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})", track.gpu, track.tid,
            track.name);
    w.event(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})", track.gpu,
            track.tid, track.tid);
  }
}

// The last compute task on `stream` before a collective that starts at `from` (looking past the
// collectives just before it, `depth` deep): the pass the collective comes after.
std::optional<TaskId> issuing_compute(const TaskGraph& g, TaskId from, int stream, int depth = 3) {
  std::optional<TaskId> previous_collective;
  for (auto [e, end] = boost::in_edges(from, g); e != end; ++e) {
    const TaskId u = boost::source(*e, g);
    if (g[u].kind == Task::Kind::compute && g[u].gpu == stream)
      return u;
    if (!previous_collective && g[u].kind == Task::Kind::delay && g[u].collective && g[u].entry >= 0)
      previous_collective = static_cast<TaskId>(g[u].entry);
    if (!previous_collective && g[u].kind == Task::Kind::isolated_collective && g[u].gpu == stream)
      previous_collective = u;
  }
  if (previous_collective && depth > 0)
    return issuing_compute(g, *previous_collective, stream, depth - 1);
  return std::nullopt;
}

// The last piece of a compute task (its last kernels' phase and layer); nullptr when its stream
// recorded none.
const KernelPiece* last_piece(const StepGraph& step, TaskId task) {
  const auto after = std::upper_bound(step.kernel_pieces.begin(), step.kernel_pieces.end(), task,
                                      [](TaskId v, const KernelPiece& p) { return v < p.task; });
  return after != step.kernel_pieces.begin() && std::prev(after)->task == task ? &*std::prev(after) : nullptr;
}

// The args of a compute task: stage, micro-batch, chunk and the model's layer (`layer` within
// the task's model chunk; -1: none).
std::string compute_args(const Task& task, int layer, const PlanIndex& index, const ExecutionPlan& plan) {
  std::string args = fmt::format(R"("stage":{})", task.stage);
  if (task.micro_batch >= 0)
    args += fmt::format(R"(,"micro_batch":{})", task.micro_batch);
  if (task.phase != Task::Phase::optimizer)
    args += fmt::format(R"(,"chunk":{})", task.chunk);
  if (layer >= 0)
    args += fmt::format(R"(,"layer":{})",
                        index.first_layer[static_cast<size_t>(task.chunk * plan.pp + task.stage)] + layer);
  return args;
}

void write_slice(EventWriter& w, const TraceSlice& s, const TraceTrack& track, const StepGraph& step,
                 const ExecutionPlan& plan, const PlanIndex& index) {
  const TaskGraph& g = step.graph;
  const Task& task = g[s.task];
  const std::string ts = micros(s.start_ns), dur = micros(s.end_ns - s.start_ns);
  if (s.role == Role::compute) {
    w.event(R"({{"ph":"X","name":"{}","cat":"compute","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
            name_of(s.phase), s.gpu, track.tid, ts, dur, compute_args(task, s.layer, index, plan));
  } else if (s.role == Role::collective && s.folded >= 0) {
    // Folded into a compute task: after the task's kernel piece before it. Before all its kernels,
    // after the task's start when the task waited for more than its stream (where the collective's
    // own task would have come after a task of no kernels, of the task's pass), else after what
    // the task came after.
    const FoldedCollective& f = folded_collectives(g)[static_cast<size_t>(s.folded)];
    std::string args = fmt::format(R"("dimension":"{}","members":{},"bytes_sent":{:.0f},)",
                                   name_of(g[f.measured].dimension), s.members, s.bytes);
    const KernelPiece* piece = nullptr;
    if (f.pieces_before > 0) {
      const auto first = std::lower_bound(step.kernel_pieces.begin(), step.kernel_pieces.end(), s.task,
                                          [](const KernelPiece& p, TaskId v) { return p.task < v; });
      piece = &*(first + f.pieces_before - 1);
    }
    const bool opens_task = !piece && f.kernels_before_s <= 0;
    const auto after = !opens_task || boost::in_degree(s.task, g) != 1
                           ? std::optional<TaskId>(s.task)
                           : issuing_compute(g, s.task, step.compute_stream[static_cast<size_t>(s.gpu)]);
    if (after) {
      if (!piece && *after != s.task)
        piece = last_piece(step, *after);
      args += fmt::format(R"("after":"{}",{})", name_of(piece ? piece->phase : g[*after].phase),
                          compute_args(g[*after], piece ? piece->layer : -1, index, plan));
    } else
      args += fmt::format(R"("stage":{})", index.stage_of(s.gpu));
    w.event(R"({{"ph":"X","name":"{}","cat":"collective","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
            label_of(*g[f.measured].collective), s.gpu, track.tid, ts, dur, args);
  } else if (s.role == Role::collective) {
    std::string args = fmt::format(R"("dimension":"{}","members":{},"bytes_sent":{:.0f},)", name_of(task.dimension),
                                   s.members, s.bytes);
    const TaskId start = task.kind == Task::Kind::isolated_collective ? s.task : static_cast<TaskId>(task.entry);
    if (const auto after = issuing_compute(g, start, step.compute_stream[static_cast<size_t>(s.gpu)])) {
      const KernelPiece* piece = last_piece(step, *after);
      args += fmt::format(R"("after":"{}",{})", name_of(piece ? piece->phase : g[*after].phase),
                          compute_args(g[*after], piece ? piece->layer : -1, index, plan));
    } else
      args += fmt::format(R"("stage":{})", index.stage_of(s.gpu));
    w.event(R"({{"ph":"X","name":"{}","cat":"collective","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
            label_of(*task.collective), s.gpu, track.tid, ts, dur, args);
  } else if (s.role == Role::copy) {
    // Out after the layer's forward, back before its backward (activation offloading).
    w.event(R"({{"ph":"X","name":"{}","cat":"offload","pid":{},"tid":{},"ts":{},"dur":{},"args":{{)"
            R"("dimension":"host","stage":{},"micro_batch":{}}}}})",
            task.peer == 1 ? "activations from host" : "activations to host", s.gpu,
            track.tid, ts, dur, task.stage, task.micro_batch);
  } else {
    const bool send = s.role == Role::send;
    w.event(R"({{"ph":"X","name":"{}","cat":"p2p","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"{}":{},)"
            R"("dimension":"pp","stage":{},"micro_batch":{},"chunk":{},"payload":"{}","bytes":{:.0f}}}}})",
            send ? "p2p send" : "p2p recv", s.gpu, track.tid, ts, dur, send ? "to_gpu" : "from_gpu", s.peer,
            task.stage, task.micro_batch, task.chunk, name_of(task.phase), task.bytes);
  }
}

// An arrow from each send to its receive, bound to the slices that enclose the arrow's ends (the
// middle of each: both viewers bind a flow to the slice open at its time). Only where both ends
// are drawn; numbered in the order of (transfer, sender), as one transfer may be drawn for several
// GPUs it stands for.
void write_flows(EventWriter& w, const TraceLayout& layout) {
  std::map<std::pair<TaskId, int>, std::array<const TraceSlice*, 2>> transfers; // (transfer, sender) -> send, receive
  for (const TraceSlice& s : layout.slices)
    if (s.role == Role::send)
      transfers[{s.task, s.gpu}][0] = &s;
    else if (s.role == Role::receive)
      transfers[{s.task, s.peer}][1] = &s;
  std::int64_t id = 0;
  for (const auto& [transfer, ends] : transfers) {
    if (!ends[0] || !ends[1])
      continue;
    const char* phase[] = {"s", "f"};
    for (size_t i = 0; i < 2; ++i) {
      const TraceSlice& s = *ends[i];
      w.event(R"({{"ph":"{}","name":"p2p","cat":"p2p","id":{},"pid":{},"tid":{},"ts":{}{}}})", phase[i], id, s.gpu,
              layout.tracks[static_cast<size_t>(s.track)].tid, micros(s.start_ns + (s.end_ns - s.start_ns) / 2),
              i == 1 ? R"(,"bp":"e")" : "");
    }
    ++id;
  }
}

// The drawn GPUs' memory over the window: the value at its start, then each change inside it.
void write_memory(EventWriter& w, const TraceLayout& layout, const std::vector<MemorySeries>& memory,
                  const TraceWindow& window) {
  constexpr double GiB = 1024.0 * 1024 * 1024;
  const std::int64_t start = trace_ns(window.start_s);
  for (int gpu : layout.gpus) {
    const MemorySeries& series = memory[static_cast<size_t>(gpu)];
    auto point = [&](std::int64_t ns, double bytes) {
      w.event(R"({{"ph":"C","name":"memory","pid":{},"tid":{},"ts":{},"args":{{"GiB":{:.6f}}}}})", gpu,
              layout.process_tids[static_cast<size_t>(gpu)], micros(ns), bytes / GiB);
    };
    const MemoryPoint* before = nullptr; // the last point before the window
    for (const MemoryPoint& p : series.points) {
      const std::int64_t ns = trace_ns(p.time_s);
      if (ns < start) {
        before = &p;
        continue;
      }
      if (p.time_s >= window.end_s)
        break;
      if (before && ns > start)
        point(start, before->bytes);
      before = nullptr;
      point(ns, p.bytes);
    }
    if (before)
      point(start, before->bytes);
  }
}

// The critical path (critical_path) as a process of its own, drawn above the GPUs: one track of
// the path's tasks in the window, back to back, each named as the report's longest tasks are
// (its compute pass, or its collective) with the GPU, stage, micro-batch and the dimension its
// communication serves. A compute task's folded collectives are drawn as the collectives they are.
void write_critical_path(EventWriter& w, const StepGraph& step, const Timeline& t, const TraceWindow& window,
                         int pid, int tid) {
  const TaskGraph& g = step.graph;
  w.event(R"({{"ph":"M","name":"process_name","pid":{},"tid":{},"args":{{"name":"critical path"}}}})", pid, tid);
  w.event(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":{},"args":{{"sort_index":-1}}}})", pid, tid);
  w.event(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"the tasks that set the step time"}}}})",
          pid, tid);
  const std::int64_t from = trace_ns(window.start_s);
  const std::int64_t to = std::isfinite(window.end_s) ? trace_ns(window.end_s) : trace_ns(t.makespan());
  auto slice = [&](const std::string& name, double start_s, double end_s, const std::string& args) {
    const std::int64_t a = std::max(from, trace_ns(start_s)), b = std::min(to, trace_ns(end_s));
    if (b > a)
      w.event(R"({{"ph":"X","name":"{}","cat":"critical_path","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
              name, pid, tid, micros(a), micros(b - a), args);
  };
  for (TaskId v : critical_path(g, t)) {
    const Task& task = g[v];
    if (t.finish[v] <= t.start[v])
      continue;
    if (task.kind == Task::Kind::compute) {
      for (const TaskPart& part : task_parts(g, t, v)) {
        if (part.folded < 0) {
          slice(name_of(task.phase), part.start, part.finish,
                fmt::format(R"("gpu":{},"stage":{},"micro_batch":{})", task.gpu, task.stage, task.micro_batch));
          continue;
        }
        const Task& measured = g[folded_collectives(g)[static_cast<size_t>(part.folded)].measured];
        slice(label_of(*measured.collective), part.start, part.finish,
              fmt::format(R"("gpu":{},"dimension":"{}")", task.gpu, name_of(measured.dimension)));
      }
    } else if (task.collective) {
      slice(label_of(*task.collective), t.start[v], t.finish[v],
            fmt::format(R"("gpu":{},"dimension":"{}")", task.gpu, name_of(task.dimension)));
    } else if (task.kind == Task::Kind::transfer) {
      slice("p2p", t.start[v], t.finish[v],
            fmt::format(R"("from_gpu":{},"to_gpu":{},"stage":{},"micro_batch":{},"dimension":"pp")", task.gpu,
                        task.peer, task.stage, task.micro_batch));
    } else {
      slice(name_of(task.phase), t.start[v], t.finish[v], fmt::format(R"("gpu":{})", task.gpu));
    }
  }
}

// What the trace draws of the job, when not all of it: its GPUs and window.
std::string selection_data(const TraceSelection& selection, int gpus) {
  std::string data;
  if (static_cast<int>(selection.gpus.size()) < gpus)
    data += fmt::format(R"(,"gpus_drawn":[{}])", fmt::join(selection.gpus, ","));
  if (!selection.window.whole_step())
    data += fmt::format(R"(,"window_s":["{:.9f}",{}])", selection.window.start_s,
                        std::isfinite(selection.window.end_s) ? fmt::format(R"("{:.9f}")", selection.window.end_s)
                                                               : std::string("null"));
  return data;
}

// Refuses a trace that would draw `slices` ("12000000 slices (23437 per GPU), more than", or
// "more than", counted up to the limit).
[[noreturn]] void refuse(const std::string& slices) {
  throw LimitError("--trace", fmt::format("the trace would draw {} simgpt's limit of {} slices (about {} MB of JSON); "
                                          "draw fewer GPUs (--trace-gpus 0-7) or less of the step (--trace-window "
                                          "START:END)",
                                          slices, kMaxTraceSlices, kTraceSliceBytes * kMaxTraceSlices / 1000000));
}

} // namespace

void check_trace_size(const StepGraph& step, const ExecutionPlan& plan, const TraceSelection& selection) {
  if (!selection.window.whole_step())
    return; // what a window holds is known once the step is replayed: write_trace checks it
  const size_t slices = count_trace_slices(step, plan, selection.gpus);
  if (slices > kMaxTraceSlices)
    refuse(fmt::format("{} slices ({} per GPU), more than", slices, slices / selection.gpus.size()));
}

// The otherData fields saying what the step was made from (none for an empty ReportInputs), each
// after a comma.
std::string inputs_data(const ReportInputs& inputs) {
  if (inputs.version.empty())
    return "";
  std::string fields;
  const nlohmann::ordered_json json = report_inputs_json(inputs);
  for (const auto& [key, value] : json.items())
    fields += "," + nlohmann::ordered_json(key).dump() + ":" + value.dump();
  return fields;
}

void write_trace(std::ostream& out, const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                 const std::vector<MemorySeries>& memory, const TraceSelection& selection,
                 const ReportInputs& inputs) {
  TraceLayout layout;
  try {
    layout = lay_out_trace(step, t, plan, selection.gpus, selection.window, kMaxTraceSlices);
  } catch (const TraceTooLarge&) {
    refuse("more than");
  }
  const PlanIndex index(plan);
  out << fmt::format(R"({{"displayTimeUnit":"ms","otherData":{{"generator":"simgpt","step_time_s":"{:.9f}",)"
                     R"("schedule":"{}","gpus":{},"dp":{},"tp":{},"pp":{},"micro_batches":{}{}{}}},)",
                     t.makespan(), name_of(plan.schedule), plan.gpus(), plan.dp, plan.tp, plan.pp,
                     plan.micro_batches, selection_data(selection, plan.gpus()), inputs_data(inputs))
      << "\n\"traceEvents\":[\n";
  {
    EventWriter w(out);
    write_metadata(w, layout, plan, index);
    for (const TraceSlice& s : layout.slices)
      write_slice(w, s, layout.tracks[static_cast<size_t>(s.track)], step, plan, index);
    // After every GPU's process and thread: a pid and tid no GPU's track has.
    int last_tid = 0;
    for (const TraceTrack& track : layout.tracks)
      last_tid = std::max(last_tid, track.tid);
    write_critical_path(w, step, t, selection.window, plan.gpus(), last_tid + 1);
    write_flows(w, layout);
    write_memory(w, layout, memory, selection.window);
  }
  out << "\n]}\n";
}

void write_trace_file(OutputFile& file, const StepGraph& step, const Timeline& t, const ExecutionPlan& plan,
                      const std::vector<MemorySeries>& memory, const TraceSelection& selection,
                      const ReportInputs& inputs) {
  if (file.path().ends_with(".gz")) {
    GzipStream gzip(file.stream());
    write_trace(gzip.stream(), step, t, plan, memory, selection, inputs);
    gzip.finish();
  } else {
    write_trace(file.stream(), step, t, plan, memory, selection, inputs);
  }
  file.commit();
}

} // namespace simgpt
