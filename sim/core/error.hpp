#pragma once
#include <stdexcept>
#include <string>

namespace odcn {

/// Bad user input. Its message is one line of the form `file: field: reason`; the CLI prints it and exits 2.
/// Control characters and bytes that are not UTF-8 in any part are escaped (`\xNN`), so the message is
/// always exactly one printable line whatever the input held.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& field, const std::string& reason);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  std::string field_;
  std::string reason_;
};

/// Writing an output failed (disk full, I/O error, a folder that vanished). One line `path: (write): reason`;
/// the CLI prints it and exits 1, and the previous result at --out is left as it was.
class IoError : public std::runtime_error {
 public:
  IoError(const std::string& path, const std::string& reason);
};

/// A circuit configuration that the fabric cannot realise (port budget or OXC radix exceeded, pods in
/// different OXC groups). Raised by net::Fabric::check; never silently clipped.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace odcn
