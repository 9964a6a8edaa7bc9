// Inputs: only regular files of bounded size. Outputs: checked before any work, errno's text kept.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/csv.hpp"
#include "ccforge/common/quoting.hpp"
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

// An output replaces only a regular file: the rename would turn a FIFO, a device or a link into a plain
// file (before, `--out /dev/full` as root did). Each is refused by name and left as it was.
TEST_F(Files, OutputsDoNotReplaceFifosDevicesSocketsOrLinks) {
  const fs::path fifo = dir_ / "fifo", target = dir_ / "target", link = dir_ / "link";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(target) << "kept";
  fs::create_symlink(target, link);
  EXPECT_THAT(message_of([&] { write_file_atomically(fifo, "x"); }), HasSubstr("fifo: is a FIFO; outputs replace only regular files"));
  EXPECT_THAT(message_of([&] { write_file_atomically(link, "x"); }),
              HasSubstr("link: is a symbolic link; outputs are not written through links (give the link's target or a new path)"));
  EXPECT_THAT(message_of([&] { check_output_path(fifo, OutputKind::File, "--out"); }), HasSubstr("is a FIFO"));
  EXPECT_THAT(message_of([&] { check_output_path(link, OutputKind::File, "--out"); }), HasSubstr("is a symbolic link"));
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_file(target), "kept");
  const fs::path device = dir_ / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0600, ::makedev(1, 3)) == 0) {
    EXPECT_THAT(message_of([&] { write_file_atomically(device, "x"); }), HasSubstr("null: is a character device; outputs replace"));
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(device)));
  } else {
    std::cout << "[ note ] mknod not permitted here (" << errno_text(errno) << "): the device case is not run\n";
  }
  const long made = 3 + (fs::exists(fs::symlink_status(device)) ? 1 : 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), made) << "no temporary file left";
}

// What reaches a terminal or a generated file stays text there.
TEST(Quoting, ControlCharactersAndMalformedUtf8AreFoundAndEscaped) {
  EXPECT_FALSE(first_unprintable("ndv5 x2 (8\u00d7 H100) \u2014 ok"));
  EXPECT_EQ(first_unprintable("a\nb"), 1u);
  EXPECT_EQ(first_unprintable("ab\x1b[31m"), 2u);
  EXPECT_EQ(first_unprintable("x\xc2\x9b"), 1u);  // U+009B: CSI in some terminals
  EXPECT_EQ(first_unprintable("x\xff"), 1u);
  EXPECT_EQ(printable("a\nb\x1b[31m\xff"), "a\\x0ab\\x1b[31m\\xff");
  EXPECT_EQ(markdown_text("a|b [x](y) <s> *e*"), "a\\|b \\[x\\](y) \\<s\\> \\*e\\*");
  EXPECT_EQ(markdown_unescaped(markdown_text("a|b_[c]")), "a|b_[c]");
  EXPECT_EQ(shell_quoted("it's $(rm -rf ~)"), "'it'\\''s $(rm -rf ~)'");
  EXPECT_EQ(csv_field("a,b\nc"), "\"a,b\\x0ac\"");
}

}  // namespace
}  // namespace ccforge
