#include "tune/work_division.hpp"

#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "tune/phase_clock.hpp"

namespace ccforge::search {

void join_process_usage(const WorkDivision& division, std::size_t simulated, TuneResult& result) {
  // Plain numbers, one process a string: fmt's "{}" writes the shortest text that reads back exactly.
  const std::vector<std::string> parts =
      division.gather(fmt::format("{} {} {} {} {} {} {}", process_cpu_s(), peak_rss_mib(), simulated, result.points_proven,
                                  result.resumed_tasks, result.floors_resumed, result.points_resumed));
  result.processes.clear();
  result.resumed_tasks = result.floors_resumed = result.points_proven = result.points_resumed = 0;
  for (const std::string& part : parts) {
    std::istringstream in(part);
    ProcessUsage usage;
    std::size_t resumed = 0, floors_resumed = 0, points_resumed = 0;
    if (!(in >> usage.cpu_s >> usage.peak_rss_mib >> usage.simulations >> usage.points_proven >> resumed >> floors_resumed >>
          points_resumed))
      throw std::runtime_error("tune: malformed process usage from another rank: '" + part + "'");
    result.processes.push_back(usage);
    result.points_proven += usage.points_proven;
    result.resumed_tasks += resumed;
    result.floors_resumed += floors_resumed;
    result.points_resumed += points_resumed;
  }
}

}  // namespace ccforge::search
