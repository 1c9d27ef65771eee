#pragma once
#include <stdexcept>
#include <string>

namespace odcn {

/// Bad user input. Its message is one line of the form `file: field: reason`; the CLI prints it and exits 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& field, const std::string& reason);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

/// A circuit configuration that the fabric cannot realise (port budget or OXC radix exceeded, pods in
/// different OXC groups). Raised by net::Fabric::check; never silently clipped.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace odcn
