#include "trace/rows.hpp"

#include <nlohmann/json.hpp>

namespace odcn::trace {

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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
