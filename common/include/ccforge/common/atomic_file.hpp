// Inputs are read only from regular files of bounded size; outputs are written atomically: to a
// temporary file beside the target, then renamed over it, so a killed run never leaves a half-written
// file behind. The rename would turn whatever the target was into a regular file, so an output replaces
// only a regular file: a device, a FIFO, a socket or a symbolic link there is refused (a link is not
// written through: its target may be anywhere, and the rename would replace the link itself). Every
// failure is a DiagError that keeps the system's reason (errno's text).
#pragma once

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccforge/common/diag.hpp"

namespace ccforge {

// The largest input ccforge reads. The largest bundled input is 0.6 MB (tests/data/msccl/
// msccl_ndv5_ap4ll.xml); the cap leaves room for algorithms over thousands of ranks while keeping a
// wrong path (a disk image, a core dump) from filling memory. Directories, FIFOs and devices are refused.
inline constexpr std::uint64_t kMaxInputBytes = std::uint64_t{256} << 20;

inline std::string errno_text(int error) { return std::generic_category().message(error); }

namespace detail {

// Closes a POSIX descriptor on every path out of a reader or writer.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] inline void fail_input(const std::string& file, std::string problem, std::string fix) {
  throw DiagError(Diag{{file, 0}, std::move(problem), std::move(fix)});
}

inline void check_input_stat(const std::string& file, const struct stat& st, std::uint64_t max_bytes) {
  if (!S_ISREG(st.st_mode)) {
    fail_input(file, std::string("is ") + file_kind(st.st_mode) + ", not a regular file", "give the path of an input file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    fail_input(file, "file is " + std::to_string(st.st_size) + " bytes, over the input limit of " + std::to_string(max_bytes) + " bytes",
               "ccforge reads inputs up to " + std::to_string(max_bytes >> 20) + " MiB");
  }
}

}  // namespace detail

// Refuses `path` as an output unless it is new or a regular file (lstat: a link itself, not its target).
// A directory passes: renaming a file over it fails by itself (EISDIR), replacing nothing.
inline void check_replaceable(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;  // new, or the write says why
  if (S_ISLNK(st.st_mode)) {
    detail::fail_input(path.string(), "is a symbolic link; outputs are not written through links",
                       "give the link's target or a new path");
  }
  detail::fail_input(path.string(), std::string("is ") + detail::file_kind(st.st_mode) + "; outputs replace only regular files",
                     "give a new path or a regular file");
}

// Reads a whole regular file of at most `max_bytes`. Checks the kind before opening (a FIFO would
// block in open(), a device read forever) and again on the open descriptor.
inline std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes = kMaxInputBytes) {
  const std::string file = path.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) detail::fail_input(file, "cannot open file: " + errno_text(errno), "check the path");
  detail::check_input_stat(file, st, max_bytes);
  const detail::FdCloser in{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (in.fd < 0) detail::fail_input(file, "cannot open file: " + errno_text(errno), "check the path and its permissions");
  if (::fstat(in.fd, &st) != 0) detail::fail_input(file, "cannot read file: " + errno_text(errno), "check the file");
  detail::check_input_stat(file, st, max_bytes);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) detail::fail_input(file, "cannot read file: " + errno_text(errno), "check the file");
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {  // grew while being read
      detail::fail_input(file, "file grew past the input limit of " + std::to_string(max_bytes) + " bytes while being read",
                         "read a finished file");
    }
  }
}

inline void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const std::string file = path.string();
  auto fail = [&](const std::string& problem, int error) {
    throw DiagError(Diag{{file, 0}, problem + ": " + errno_text(error), "check that the directory is writable and the disk not full"});
  };
  check_replaceable(path);
  if (path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) fail("cannot create directory " + path.parent_path().string(), ec.value());
  }
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  int error = 0;
  {
    const detail::FdCloser out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) fail("cannot write file", errno);
    for (std::size_t done = 0; done < contents.size() && error == 0;) {
      const ssize_t n = ::write(out.fd, contents.data() + done, contents.size() - done);
      if (n < 0 && errno != EINTR) error = errno;
      if (n > 0) done += static_cast<std::size_t>(n);
    }
  }
  if (error == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    fail("cannot write file", error);
  }
}

}  // namespace ccforge
