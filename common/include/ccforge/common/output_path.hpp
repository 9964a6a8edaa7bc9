// Checks, before any work, that an output can be written where the user asked: the nearest existing
// folder on the way must be a directory in which a file can be created. A run then never computes for
// minutes to fail at its last step, and the message keeps the system's reason (errno's text).
#pragma once

#include <cerrno>
#include <filesystem>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/diag.hpp"

namespace ccforge {

enum class OutputKind { File, Directory };

// The probe file check_output_path creates and removes; another process of the same job (an MPI rank)
// may see it for a moment, so directory checks take it as the job's own.
inline constexpr std::string_view kWriteProbePrefix = ".ccforge-write-probe.";

namespace detail {

// The deepest existing folder of `dir` (itself included), or a DiagError for `target`.
inline std::filesystem::path existing_folder(const std::filesystem::path& dir, const std::string& target, const std::string& flag) {
  std::filesystem::path at = dir.empty() ? "." : dir;
  for (;;) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return at;
      fail_at(target, 0, "cannot write there: " + at.string() + " is not a directory", "choose another " + flag);
    }
    const int error = errno;
    if (error != ENOENT || at == "." || !at.has_relative_path()) {
      fail_at(target, 0, "cannot write there: " + errno_text(error), "choose another " + flag);
    }
    at = at.parent_path().empty() ? "." : at.parent_path();
  }
}

}  // namespace detail

// `flag` names the option in the fix, e.g. "--out". Creates nothing: a probe file is made and removed.
inline void check_output_path(const std::filesystem::path& path, OutputKind kind, const std::string& flag) {
  const std::string target = path.string();
  if (target.empty()) fail_at(flag, 0, "empty output path", "give " + flag + " a file or directory name");
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (kind == OutputKind::File && (target.back() == '/' || (exists && S_ISDIR(st.st_mode)))) {
    fail_at(target, 0, "is a directory, not a file name", "give " + flag + " a file name");
  }
  if (kind == OutputKind::File) check_replaceable(path);
  if (kind == OutputKind::Directory && exists && !S_ISDIR(st.st_mode)) {
    fail_at(target, 0, "exists and is not a directory", "give " + flag + " a directory");
  }
  const std::filesystem::path folder =
      detail::existing_folder(kind == OutputKind::File ? path.parent_path() : path, target, flag);
  const std::filesystem::path probe = folder / (std::string(kWriteProbePrefix) + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int error = errno;
    fail_at(target, 0, "cannot write in " + folder.string() + ": " + errno_text(error), "choose a writable location for " + flag);
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace ccforge
