#pragma once
// A thin builder over CBC's C interface (Debian's coinor-libcbc), shared by the exact planners: TDM-4's grouping
// ILP (systems/tdm4/tdm4_ilp.hpp) and TOPO-X's time-slotted RCPSP (systems/topox/topox.hpp). Minimisation; CBC runs on one
// thread so that the same model gives the same answer on every machine.
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace odcn::sched {

class Milp {
 public:
  Milp();
  ~Milp();
  Milp(const Milp&) = delete;
  Milp& operator=(const Milp&) = delete;

  /// A column with bounds, objective coefficient and integrality; returns its index.
  int add_var(double lb, double ub, double obj, bool integer);
  /// sum(terms) `sense` rhs, sense one of 'L' (<=), 'G' (>=), 'E' (=). Zero coefficients are dropped.
  void add_row(const std::vector<std::pair<int, double>>& terms, char sense, double rhs);
  int vars() const { return vars_; }
  int rows() const { return rows_; }

  /// A complete feasible assignment CBC starts from (a warm start), one value per column.
  void set_start(const std::vector<double>& values);
  /// The first row or bound that `values` breaks by more than `tolerance` (its index and the amount, as text), or
  /// "" when none: a warm start CBC would reject says where it is wrong.
  std::string violation(const std::vector<double>& values, double tolerance = 1e-9) const;

  struct Result {
    bool solved = false;   ///< an integer solution exists (found, or the start kept)
    bool optimal = false;  ///< proven optimal
    double objective = 0;
    double bound = 0;      ///< the best lower bound CBC proved
    std::vector<double> values;
  };
  Result solve(double time_limit_s);

 private:
  struct Deleter {
    void operator()(void* m) const;
  };
  std::unique_ptr<void, Deleter> model_;
  struct Row {
    std::vector<std::pair<int, double>> terms;
    char sense;
    double rhs;
  };
  std::vector<Row> kept_;
  std::vector<std::pair<double, double>> bounds_;  ///< a Cbc_Model (CBC's C interface declares it as void)
  int vars_ = 0;
  int rows_ = 0;
};

}  // namespace odcn::sched
