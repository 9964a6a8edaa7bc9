// Simulated time of a measured run, and model_error.csv: how far the simulator is from each measurement.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/core.h>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

double simulated_us(const topo::Topology& topology, const sim::SimParams& params, const Measurement& m,
                    const std::vector<Candidate>& algorithms) {
  const auto coll = ir::collective_from_string(m.collective);
  const auto dtype = data_type_from_string(m.type);
  if (!coll || !dtype)
    throw DiagError(Diag{{m.file.empty() ? std::string("measured") : m.file, 0}, "cannot simulate " + m.collective + " on type " + m.type,
                         "use a collective and type the simulator knows (" + data_type_names() + ")"});
  const sim::CallSpec call{m.size_bytes, *dtype};
  if (m.algorithm == "NCCL") return sim::simulate_nccl(topology, *coll, call, sim::NcclRequest{}, params).time.us();
  const auto it = std::find_if(algorithms.begin(), algorithms.end(), [&](const Candidate& c) { return c.file.string() == m.file; });
  if (it == algorithms.end())
    throw DiagError(Diag{{m.file, 0}, "algorithm '" + m.algorithm + "' is not among the loaded algorithms", "give its directory with --algos"});
  return sim::simulate(topology, it->algorithm, call, params).time.us();
}

std::string model_error_csv(const SweepResult& result, const std::vector<Candidate>& algorithms, const topo::Topology& topology,
                            const sim::SimParams& params) {
  std::string csv = "collective,algorithm,size_bytes,measured_us,simulated_us,error_pct\n";
  for (const Measurement& m : result.runs) {
    if (!m.ok()) continue;
    const double simulated = simulated_us(topology, params, m, algorithms);
    const double error_pct = (simulated - m.time_us) / m.time_us * 100.0;
    csv += fmt::format("{},{},{},{:.3f},{:.3f},{:.2f}\n", m.collective, m.algorithm, m.size_bytes, m.time_us, simulated, error_pct);
  }
  return csv;
}

}  // namespace ccforge::validate
