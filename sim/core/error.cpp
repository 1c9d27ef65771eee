#include "core/error.hpp"

namespace odcn {

InputError::InputError(const std::string& file, const std::string& field, const std::string& reason)
    : std::runtime_error(file + ": " + field + ": " + reason), file_(file), field_(field) {}

}  // namespace odcn
