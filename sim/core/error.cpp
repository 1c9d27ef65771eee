#include "core/error.hpp"

#include "core/text.hpp"

namespace odcn {

InputError::InputError(const std::string& file, const std::string& field, const std::string& reason)
    : std::runtime_error(escape_line(file) + ": " + escape_line(field) + ": " + escape_line(reason)),
      file_(file),
      field_(field),
      reason_(reason) {}

IoError::IoError(const std::string& path, const std::string& reason)
    : std::runtime_error(escape_line(path) + ": (write): " + escape_line(reason)) {}

}  // namespace odcn
