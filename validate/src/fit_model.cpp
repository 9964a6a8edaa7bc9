#include "fit_model.hpp"

#include <algorithm>
#include <utility>

namespace ccforge::validate {

FitModel::FitModel(std::filesystem::path topology_file, topo::LoadOptions load, std::vector<FitParam> params,
                   std::vector<Measurement> points, const std::vector<Candidate>& algorithms, sim::SimParams base)
    : topology_file_(std::move(topology_file)),
      load_(std::move(load)),
      params_(std::move(params)),
      points_(std::move(points)),
      algorithms_(algorithms),
      base_(std::move(base)),
      link_defaults_(topo::load_topology(topology_file_, load_).link_params()) {}

double FitModel::value(Eigen::Index k, double normalised) const {
  const FitParam& p = params_[static_cast<std::size_t>(k)];
  return p.lower + normalised * (p.upper - p.lower);
}

Eigen::VectorXd FitModel::initial() const {
  Eigen::VectorXd u(static_cast<Eigen::Index>(params_.size()));
  for (std::size_t k = 0; k < params_.size(); ++k) {
    const FitParam& p = params_[k];
    const bool link = p.name.starts_with("link.");
    const double v = link ? link_defaults_.get(p.name) : sim::param_value(base_, p.name).value();
    u[static_cast<Eigen::Index>(k)] = std::clamp((v - p.lower) / (p.upper - p.lower), 0.0, 1.0);
  }
  return u;
}

Eigen::VectorXd FitModel::simulated(const Eigen::VectorXd& u) const {
  topo::LoadOptions load = load_;
  sim::SimParams params = base_;
  for (Eigen::Index k = 0; k < u.size(); ++k) {
    const std::string& name = params_[static_cast<std::size_t>(k)].name;
    if (name.starts_with("link."))
      load.profile.push_back({name, value(k, u[k]), SourceLoc{"calibrate", 0}});
    else
      sim::set_param(params, name, value(k, u[k]), "calibrate");
  }
  const topo::Topology topology = topo::load_topology(topology_file_, load);
  Eigen::VectorXd out(static_cast<Eigen::Index>(points_.size()));
  for (std::size_t i = 0; i < points_.size(); ++i) out[static_cast<Eigen::Index>(i)] = simulated_us(topology, params, points_[i], algorithms_);
  return out;
}

Eigen::VectorXd FitModel::residuals(const Eigen::VectorXd& u) const {
  const Eigen::VectorXd sim = simulated(u);
  Eigen::VectorXd r(sim.size());
  for (Eigen::Index i = 0; i < sim.size(); ++i) r[i] = sim[i] / points_[static_cast<std::size_t>(i)].time_us - 1.0;
  return r;
}

std::vector<Param> FitModel::params_at(const Eigen::VectorXd& u, const std::string& source) const {
  std::vector<Param> out;
  const ParamTable sim_params = sim::param_table(base_);
  for (Eigen::Index k = 0; k < u.size(); ++k) {
    const std::string& name = params_[static_cast<std::size_t>(k)].name;
    const Param* known = name.starts_with("link.") ? link_defaults_.find(name) : sim_params.find(name);
    out.push_back({name, value(k, u[k]), known->unit, source.empty() ? known->source : source});
  }
  return out;
}

}  // namespace ccforge::validate
