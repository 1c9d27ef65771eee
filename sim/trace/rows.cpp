#include "trace/rows.hpp"

namespace odcn::trace {

Seconds RunRecord::mean_iteration_s() const {
  Seconds sum = 0;
  int n = 0;
  for (const auto& r : iterations)
    if (!r.warm) {
      sum += r.end_s - r.start_s;
      ++n;
    }
  return n ? sum / n : 0;
}

}  // namespace odcn::trace
