#include "trace/output_dir.hpp"

#include <unistd.h>

#include <stdexcept>

namespace odcn::trace {

namespace fs = std::filesystem;

OutputDir::OutputDir(const std::string& final_dir) : final_(fs::absolute(final_dir).lexically_normal()) {
  if (final_.filename().empty()) final_ = final_.parent_path();
  fs::create_directories(final_.parent_path());
  std::string pattern = (final_.parent_path() / ("." + final_.filename().string() + ".partial-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a staging folder next to " + final_.string());
  staging_ = pattern;
}

OutputDir::~OutputDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

void OutputDir::commit() {
  fs::path old;
  if (fs::exists(final_)) {
    old = staging_;
    old += ".old";
    fs::rename(final_, old);
  }
  fs::rename(staging_, final_);
  committed_ = true;
  if (!old.empty()) fs::remove_all(old);
}

}  // namespace odcn::trace
