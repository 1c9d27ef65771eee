#include "trace/file_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace odcn::trace {

namespace {
constexpr std::size_t kBufferBytes = 1 << 20;
}

FileWriter::FileWriter(std::string path, std::string shown_path) : shown_(std::move(shown_path)) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot create", errno);
  buffer_.reserve(kBufferBytes);
}

FileWriter::FileWriter(FileWriter&& other) noexcept
    : fd_(other.fd_), shown_(std::move(other.shown_)), buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWriter::fail(const char* what, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  throw IoError(shown_, fmt::format("{}: {}", what, std::strerror(error)));
}

void FileWriter::write(std::string_view text) {
  if (fd_ < 0) throw IoError(shown_, "write after close");
  if (buffer_.size() + text.size() > kBufferBytes) flush();
  if (text.size() >= kBufferBytes)
    write_all(text);
  else
    buffer_.append(text);
}

void FileWriter::write_all(std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write failed", errno);
    if (n == 0) fail("write failed", EIO);
    done += static_cast<std::size_t>(n);
  }
}

void FileWriter::flush() {
  write_all(buffer_);
  buffer_.clear();
}

void FileWriter::close(bool sync) {
  if (fd_ < 0) throw IoError(shown_, "closed twice");
  flush();
  // fsync before the folder is moved into place: after a crash the committed result must not hold empty
  // or truncated files (delayed allocation would otherwise allow it).
  if (sync && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("fsync failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) throw IoError(shown_, fmt::format("close failed: {}", std::strerror(errno)));
}

}  // namespace odcn::trace
