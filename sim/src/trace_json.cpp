// Chrome trace-event JSON (loads in Perfetto and chrome://tracing): one process per rank holding its
// threadblock tracks, one process for the links (load as "C" counters) and one for the call's latencies
// outside the task graph; slices are "X" events with their arguments.
#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string_view>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {
namespace {

constexpr std::string_view kRankPrefix = "rank ";
constexpr std::string_view kLatencyTrack = "call latencies";
constexpr std::string_view kHostTrack = "host launch";

// The rank of a track named "rank N ...", -1 for any other track (links, latencies).
int rank_of_track(std::string_view name) {
  if (!name.starts_with(kRankPrefix)) return -1;
  name.remove_prefix(kRankPrefix.size());
  int rank = -1;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), rank);
  return error == std::errc{} && rank >= 0 ? rank : -1;
}

}  // namespace

void add_latency_slices(Trace& trace, SimTime device, SimTime host_launch) {
  const int track = trace.add_track(std::string(kLatencyTrack));
  if (device > trace.device_end) trace.slices.push_back({track, "base latency", trace.device_end, device, 0.0});
  if (host_launch > SimTime{0})
    trace.slices.push_back({trace.add_track(std::string(kHostTrack)), "kernel launches", SimTime{0}, host_launch, 0.0});
}

std::string to_chrome_trace_json(const Trace& trace) {
  // Ranks are processes 1..N (pid 0 is dropped by some viewers); links and latencies come after. A
  // rank without a label (a caller that set none) is named "rank N".
  int ranks = static_cast<int>(trace.rank_labels.size());
  for (const std::string& name : trace.track_names) ranks = std::max(ranks, rank_of_track(name) + 1);
  const int links_pid = ranks + 1, call_pid = ranks + 2;
  std::vector<int> pid_of_track(trace.track_names.size());
  nlohmann::json events = nlohmann::json::array();
  auto process = [&](int pid, const std::string& name) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  };
  for (int r = 0; r < ranks; ++r) {
    const auto index = static_cast<std::size_t>(r);
    process(r + 1, index < trace.rank_labels.size() ? trace.rank_labels[index] : "rank " + std::to_string(r));
  }
  process(links_pid, "links");
  process(call_pid, "call");
  for (std::size_t i = 0; i < trace.track_names.size(); ++i) {
    const std::string& name = trace.track_names[i];
    const int rank = rank_of_track(name);
    const bool latency = name == kLatencyTrack || name == kHostTrack;
    pid_of_track[i] = rank >= 0 ? rank + 1 : latency ? call_pid : links_pid;
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid_of_track[i]}, {"tid", i},
                      {"args", {{"name", name}}}});
  }
  for (const TraceSlice& s : trace.slices) {
    const auto track = static_cast<std::size_t>(s.track);
    nlohmann::json args{{"wire_bytes", s.wire_bytes}, {"protocol", trace.protocol}};
    if (s.peer >= 0) args["peer"] = s.peer;
    if (s.chunk >= 0) args["chunk"] = s.chunk;
    if (const int rank = rank_of_track(trace.track_names[track]); rank >= 0) args["rank"] = rank;
    events.push_back({{"ph", "X"}, {"name", s.name}, {"pid", pid_of_track[track]}, {"tid", s.track},
                      {"ts", s.start.us()}, {"dur", (s.end - s.start).us()}, {"args", args}});
  }
  for (const TraceCounter& c : trace.counters) {
    const auto track = static_cast<std::size_t>(c.track);
    events.push_back({{"ph", "C"}, {"name", trace.track_names[track]}, {"pid", pid_of_track[track]}, {"tid", c.track},
                      {"ts", c.at.us()}, {"args", {{"GB/s", c.value}}}});
  }
  nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  return doc.dump(1);
}

}  // namespace ccforge::sim
