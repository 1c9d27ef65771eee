#include "policy/milp.hpp"

#include <Cbc_C_Interface.h>
#include <fmt/format.h>

#include <cmath>

namespace odcn::sched {

void Milp::Deleter::operator()(void* m) const { Cbc_deleteModel(static_cast<Cbc_Model*>(m)); }

Milp::Milp() : model_(Cbc_newModel()) { Cbc_setObjSense(static_cast<Cbc_Model*>(model_.get()), 1.0); }
Milp::~Milp() = default;

int Milp::add_var(double lb, double ub, double obj, bool integer) {
  // Unique names: CBC matches a warm start's values to columns by name (with every name empty it cannot use one).
  const std::string name = fmt::format("x{}", vars_);
  Cbc_addCol(static_cast<Cbc_Model*>(model_.get()), name.c_str(), lb, ub, obj, integer ? 1 : 0, 0, nullptr, nullptr);
  bounds_.emplace_back(lb, ub);
  return vars_++;
}

void Milp::add_row(const std::vector<std::pair<int, double>>& terms, char sense, double rhs) {
  std::vector<int> cols;
  std::vector<double> coefs;
  for (const auto& [c, v] : terms)
    if (v != 0) {
      cols.push_back(c);
      coefs.push_back(v);
    }
  Cbc_addRow(static_cast<Cbc_Model*>(model_.get()), "", static_cast<int>(cols.size()), cols.data(), coefs.data(), sense, rhs);
  ++rows_;
  kept_.push_back({terms, sense, rhs});
}

std::string Milp::violation(const std::vector<double>& values, double tolerance) const {
  for (std::size_t c = 0; c < bounds_.size(); ++c)
    if (values.at(c) < bounds_[c].first - tolerance || values.at(c) > bounds_[c].second + tolerance)
      return fmt::format("column {} = {} outside [{}, {}]", c, values[c], bounds_[c].first, bounds_[c].second);
  for (std::size_t r = 0; r < kept_.size(); ++r) {
    double lhs = 0;
    for (const auto& [c, v] : kept_[r].terms) lhs += v * values.at(static_cast<std::size_t>(c));
    const double rhs = kept_[r].rhs;
    const bool ok = kept_[r].sense == 'L' ? lhs <= rhs + tolerance
                    : kept_[r].sense == 'G' ? lhs >= rhs - tolerance
                                            : std::abs(lhs - rhs) <= tolerance;
    if (!ok) return fmt::format("row {} ({} terms): {} {} {}", r, kept_[r].terms.size(), lhs, kept_[r].sense, rhs);
  }
  return {};
}

void Milp::set_start(const std::vector<double>& values) {
  std::vector<int> cols(values.size());
  for (std::size_t c = 0; c < cols.size(); ++c) cols[c] = static_cast<int>(c);
  Cbc_setMIPStartI(static_cast<Cbc_Model*>(model_.get()), static_cast<int>(cols.size()), cols.data(), values.data());
}

Milp::Result Milp::solve(double time_limit_s) {
  Cbc_setLogLevel(static_cast<Cbc_Model*>(model_.get()), 0);
  Cbc_setMaximumSeconds(static_cast<Cbc_Model*>(model_.get()), time_limit_s);
  Cbc_setParameter(static_cast<Cbc_Model*>(model_.get()), "threads", "1");
  Cbc_setParameter(static_cast<Cbc_Model*>(model_.get()), "timeMode", "elapsed");  // wall clock, not CPU time
  Cbc_solve(static_cast<Cbc_Model*>(model_.get()));
  Result r;
  const double* sol = Cbc_getColSolution(static_cast<Cbc_Model*>(model_.get()));
  r.objective = Cbc_getObjValue(static_cast<Cbc_Model*>(model_.get()));
  r.solved = sol != nullptr && r.objective < 1e30;
  if (!r.solved) return r;
  r.optimal = Cbc_isProvenOptimal(static_cast<Cbc_Model*>(model_.get())) != 0;
  r.bound = Cbc_getBestPossibleObjValue(static_cast<Cbc_Model*>(model_.get()));
  r.values.assign(sol, sol + vars_);
  return r;
}

}  // namespace odcn::sched
