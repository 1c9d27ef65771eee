#pragma once
#include <filesystem>
#include <string>

namespace odcn::trace {

/// Writes a run's files into a hidden sibling folder and moves it into place only on commit(), so that a
/// failed run never leaves a half-written DIR. An existing DIR is replaced as a whole on commit.
class OutputDir {
 public:
  explicit OutputDir(const std::string& final_dir);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  std::string file(const std::string& name) const { return (staging_ / name).string(); }
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

}  // namespace odcn::trace
