#pragma once
#include <string>
#include <string_view>

namespace odcn::trace {

/// An output file whose every write, flush, fsync and close is checked. A failure (disk full, I/O error,
/// a file-size limit) raises IoError naming `shown_path`, the path the user will see once the run is
/// committed, with the system's reason. Writes are buffered; close() must be called for the file to count
/// as written (the destructor of an unclosed writer closes it quietly, on error paths).
class FileWriter {
 public:
  FileWriter(std::string path, std::string shown_path);
  ~FileWriter();
  FileWriter(FileWriter&& other) noexcept;
  FileWriter& operator=(FileWriter&&) = delete;
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(std::string_view text);
  FileWriter& operator<<(std::string_view text) {
    write(text);
    return *this;
  }
  /// Writes what is buffered, fsyncs (unless `sync` is false: the caller syncs the whole folder once, see
  /// workflow::sync_folder) and closes; raises IoError on any failure.
  void close(bool sync = true);

 private:
  void flush();
  void write_all(std::string_view bytes);
  [[noreturn]] void fail(const char* what, int error);
  int fd_ = -1;
  std::string shown_;
  std::string buffer_;
};

}  // namespace odcn::trace
