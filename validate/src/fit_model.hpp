// The simulator as a function of a few normalised parameters (each in [0, 1] of its physical range):
// what calibrate's least-squares fit evaluates.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ccforge/validate/validate.hpp"

namespace ccforge::validate {

class FitModel {
 public:
  FitModel(std::filesystem::path topology_file, topo::LoadOptions load, std::vector<FitParam> params, std::vector<Measurement> points,
           const std::vector<Candidate>& algorithms, sim::SimParams base);

  Eigen::VectorXd initial() const;                            // the model's current values, normalised
  Eigen::VectorXd simulated(const Eigen::VectorXd& u) const;  // us per point
  Eigen::VectorXd residuals(const Eigen::VectorXd& u) const;  // simulated / measured - 1 per point
  std::vector<Param> params_at(const Eigen::VectorXd& u, const std::string& source) const;

 private:
  double value(Eigen::Index k, double normalised) const;

  std::filesystem::path topology_file_;
  topo::LoadOptions load_;
  std::vector<FitParam> params_;
  std::vector<Measurement> points_;
  const std::vector<Candidate>& algorithms_;
  sim::SimParams base_;
  ParamTable link_defaults_;
};

}  // namespace ccforge::validate
