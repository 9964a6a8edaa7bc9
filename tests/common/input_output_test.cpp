// Inputs: only regular files of bounded size. Outputs: checked before any work, errno's text kept.
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/output_path.hpp"

namespace ccforge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ccforge_files_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The message of the DiagError `fn` throws; fails the test if it throws none.
  template <typename Fn>
  static std::string message_of(Fn&& fn) {
    try {
      fn();
    } catch (const DiagError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no DiagError";
    return {};
  }

  fs::path dir_;
};

TEST_F(Files, ReadingADirectoryIsRefused) {
  EXPECT_EQ(message_of([&] { read_file(dir_); }), dir_.string() + ": is a directory, not a regular file (give the path of an input file)");
}

TEST_F(Files, ReadingAFifoIsRefusedWithoutBlocking) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(message_of([&] { read_file(fifo); }), HasSubstr(": is a FIFO, not a regular file"));
}

TEST_F(Files, ReadingADeviceIsRefused) {
  EXPECT_THAT(message_of([] { read_file("/dev/zero"); }), HasSubstr("/dev/zero: is a character device, not a regular file"));
}

TEST_F(Files, InputsOverTheLimitAreRefusedWithSizeAndLimit) {
  const fs::path big = dir_ / "big.xml";
  std::ofstream(big) << std::string(2000, 'x');
  EXPECT_EQ(read_file(big, 2000).size(), 2000u);
  EXPECT_THAT(message_of([&] { read_file(big, 1999); }), HasSubstr("file is 2000 bytes, over the input limit of 1999 bytes"));
}

TEST_F(Files, AMissingInputKeepsTheSystemsReason) {
  EXPECT_THAT(message_of([&] { read_file(dir_ / "none.xml"); }), HasSubstr("none.xml: cannot open file: No such file or directory"));
}

TEST_F(Files, OutputChecksPassForNewFilesAndFolders) {
  check_output_path(dir_ / "a" / "b" / "out.json", OutputKind::File, "--trace");
  check_output_path(dir_ / "new-dir", OutputKind::Directory, "--out");
  check_output_path(dir_, OutputKind::Directory, "--out");
  EXPECT_TRUE(fs::is_empty(dir_)) << "the check creates nothing";
}

TEST_F(Files, OutputUnderAFileIsRefusedBeforeWork) {
  const fs::path file = dir_ / "plain";
  std::ofstream(file) << "x";
  EXPECT_EQ(message_of([&] { check_output_path(file / "out.json", OutputKind::File, "--trace"); }),
            (file / "out.json").string() + ": cannot write there: " + file.string() + " is not a directory (choose another --trace)");
  EXPECT_THAT(message_of([&] { check_output_path(file, OutputKind::Directory, "--out"); }), HasSubstr("exists and is not a directory"));
  EXPECT_THAT(message_of([&] { check_output_path(dir_, OutputKind::File, "-o"); }), HasSubstr("is a directory, not a file name (give -o a file name)"));
}

TEST_F(Files, FailedWritesKeepErrnosText) {
  const fs::path file = dir_ / "plain";
  std::ofstream(file) << "x";
  // Before, the rename error was overwritten by the cleanup's and read "cannot replace file: Success".
  EXPECT_THAT(message_of([&] { write_file_atomically(dir_, "x"); }), HasSubstr("cannot write file: Is a directory"));
  EXPECT_THAT(message_of([&] { write_file_atomically(file / "out", "x"); }), HasSubstr("Not a directory"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "no temporary file left";
}

}  // namespace
}  // namespace ccforge
