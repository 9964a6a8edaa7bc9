// Chrome trace-event JSON (loads in Perfetto and chrome://tracing): one thread track per threadblock
// and per link, named by metadata events; slices are "X" events, link loads "C" counters.
#include <nlohmann/json.hpp>

#include "ccforge/sim/sim.hpp"

namespace ccforge::sim {

std::string to_chrome_trace_json(const Trace& trace) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t i = 0; i < trace.track_names.size(); ++i) {
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", i},
                      {"args", {{"name", trace.track_names[i]}}}});
  }
  for (const TraceSlice& s : trace.slices) {
    events.push_back({{"ph", "X"}, {"name", s.name}, {"pid", 1}, {"tid", s.track}, {"ts", s.start.us()},
                      {"dur", (s.end - s.start).us()}});
  }
  for (const TraceCounter& c : trace.counters) {
    events.push_back({{"ph", "C"}, {"name", trace.track_names[c.track]}, {"pid", 1}, {"tid", c.track},
                      {"ts", c.at.us()}, {"args", {{"GB/s", c.value}}}});
  }
  nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  return doc.dump(1);
}

}  // namespace ccforge::sim
