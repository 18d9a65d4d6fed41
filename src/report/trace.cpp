#include "report/trace.hpp"

#include "report/trace_layout.hpp"
#include "execution/collective.hpp"
#include "simgpt/core/error.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
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
  for (int gpu = 0; gpu < plan.gpus(); ++gpu) {
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

// The last compute task on `gpu`'s stream before a collective (looking past the collectives
// just before it, `depth` deep): the pass and layer the collective comes after.
const Task* issuing_compute(const TaskGraph& g, TaskId entry, int gpu, int depth = 3) {
  std::optional<TaskId> previous_collective;
  for (auto [e, end] = boost::in_edges(entry, g); e != end; ++e) {
    const TaskId u = boost::source(*e, g);
    if (g[u].kind == Task::Kind::compute && g[u].gpu == gpu)
      return &g[u];
    if (!previous_collective && g[u].kind == Task::Kind::delay && g[u].collective && g[u].entry >= 0)
      previous_collective = static_cast<TaskId>(g[u].entry);
  }
  return previous_collective && depth > 0 ? issuing_compute(g, *previous_collective, gpu, depth - 1) : nullptr;
}

// The args of a compute task: stage, micro-batch, chunk and (detailed graphs) the model's layer.
std::string compute_args(const Task& task, const PlanIndex& index, const ExecutionPlan& plan) {
  std::string args = fmt::format(R"("stage":{})", task.stage);
  if (task.micro_batch >= 0)
    args += fmt::format(R"(,"micro_batch":{})", task.micro_batch);
  if (task.phase != Task::Phase::optimizer)
    args += fmt::format(R"(,"chunk":{})", task.chunk);
  if (task.layer >= 0)
    args += fmt::format(R"(,"layer":{})",
                        index.first_layer[static_cast<size_t>(task.chunk * plan.pp + task.stage)] + task.layer);
  return args;
}

void write_slice(EventWriter& w, const TraceSlice& s, const TraceTrack& track, const TaskGraph& g,
                 const ExecutionPlan& plan, const PlanIndex& index) {
  const Task& task = g[s.task];
  const std::string ts = micros(s.start_ns), dur = micros(s.end_ns - s.start_ns);
  if (s.role == Role::compute) {
    w.event(R"({{"ph":"X","name":"{}","cat":"compute","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
            name_of(task.phase), s.gpu, track.tid, ts, dur, compute_args(task, index, plan));
  } else if (s.role == Role::collective) {
    std::string args = fmt::format(R"("members":{},"bytes_sent":{:.0f},)", s.members, s.bytes);
    if (const Task* after = issuing_compute(g, static_cast<TaskId>(task.entry), s.gpu))
      args += fmt::format(R"("after":"{}",{})", name_of(after->phase), compute_args(*after, index, plan));
    else
      args += fmt::format(R"("stage":{})", index.stage_of(s.gpu));
    w.event(R"({{"ph":"X","name":"{}","cat":"collective","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})",
            label_of(*task.collective), s.gpu, track.tid, ts, dur, args);
  } else {
    const bool send = s.role == Role::send;
    w.event(R"({{"ph":"X","name":"{}","cat":"p2p","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"{}":{},)"
            R"("stage":{},"micro_batch":{},"chunk":{},"payload":"{}","bytes":{:.0f}}}}})",
            send ? "p2p send" : "p2p recv", s.gpu, track.tid, ts, dur, send ? "to_gpu" : "from_gpu",
            send ? task.peer : task.gpu, task.stage, task.micro_batch, task.chunk, name_of(task.phase), task.bytes);
  }
}

// An arrow from each send to its receive, bound to the slices that enclose the arrow's ends (the
// middle of each: both viewers bind a flow to the slice open at its time).
void write_flows(EventWriter& w, const TraceLayout& layout) {
  std::map<TaskId, std::array<const TraceSlice*, 2>> transfers; // send, receive
  for (const TraceSlice& s : layout.slices)
    if (s.role == Role::send || s.role == Role::receive)
      transfers[s.task][s.role == Role::send ? 0 : 1] = &s;
  for (const auto& [task, ends] : transfers) {
    const char* phase[] = {"s", "f"};
    for (size_t i = 0; i < 2; ++i) {
      const TraceSlice& s = *ends[i];
      w.event(R"({{"ph":"{}","name":"p2p","cat":"p2p","id":{},"pid":{},"tid":{},"ts":{}{}}})", phase[i], task, s.gpu,
              layout.tracks[static_cast<size_t>(s.track)].tid, micros(s.start_ns + (s.end_ns - s.start_ns) / 2),
              i == 1 ? R"(,"bp":"e")" : "");
    }
  }
}

void write_memory(EventWriter& w, const TraceLayout& layout, const std::vector<MemorySeries>& memory) {
  constexpr double GiB = 1024.0 * 1024 * 1024;
  for (const MemorySeries& series : memory)
    for (const MemoryPoint& p : series.points)
      w.event(R"({{"ph":"C","name":"memory","pid":{},"tid":{},"ts":{},"args":{{"GiB":{:.6f}}}}})", series.gpu,
              layout.process_tids[static_cast<size_t>(series.gpu)], micros(trace_ns(p.time_s)), p.bytes / GiB);
}

} // namespace

void write_trace(std::ostream& out, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                 const std::vector<MemorySeries>& memory) {
  const TraceLayout layout = lay_out_trace(g, t, plan);
  const PlanIndex index(plan);
  out << fmt::format(R"({{"displayTimeUnit":"ms","otherData":{{"generator":"simgpt","step_time_s":"{:.9f}",)"
                     R"("schedule":"{}","gpus":{},"dp":{},"tp":{},"pp":{},"micro_batches":{}}},)",
                     t.makespan(), name_of(plan.schedule), plan.gpus(), plan.dp, plan.tp, plan.pp,
                     plan.micro_batches)
      << "\n\"traceEvents\":[\n";
  {
    EventWriter w(out);
    write_metadata(w, layout, plan, index);
    for (const TraceSlice& s : layout.slices)
      write_slice(w, s, layout.tracks[static_cast<size_t>(s.track)], g, plan, index);
    write_flows(w, layout);
    write_memory(w, layout, memory);
  }
  out << "\n]}\n";
}

void write_trace_file(OutputFile& file, const TaskGraph& g, const Timeline& t, const ExecutionPlan& plan,
                      const std::vector<MemorySeries>& memory) {
  write_trace(file.stream(), g, t, plan, memory);
  file.commit();
}

} // namespace simgpt
