#include "trace/rows.hpp"

#include <nlohmann/json.hpp>

namespace odcn::trace {

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace odcn::trace
