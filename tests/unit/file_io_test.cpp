// write_file_atomically: a file is replaced whole or not at all. A writer that throws, or a
// folder that cannot be written, leaves the previous file byte for byte and no temp file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"

namespace limiter {
namespace {
namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("limiter_file_io_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write_file_atomically(target(), kGood);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  std::string target() const { return (dir_ / "report.txt").string(); }
  std::string contents() const {
    std::ifstream in(target(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::size_t files_in_dir() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {})); }

  static constexpr const char* kGood = "the previous good report\n\x01\xff";
  fs::path dir_;
};

TEST_F(AtomicWrite, ReplacesTheFileWhole) {
  write_file_atomically(target(), "new");
  EXPECT_EQ(contents(), "new");
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(AtomicWrite, WriterThrowingMidWriteLeavesThePreviousFileAndNoTemp) {
  EXPECT_THROW(write_file_atomically(target(),
                                     [](std::ostream& out) {
                                       out << std::string(1 << 20, 'x');  // past any stream buffer
                                       throw InputError("corrupt input found while rendering");
                                     }),
               InputError);
  EXPECT_EQ(contents(), kGood);
  EXPECT_EQ(files_in_dir(), 1u) << "a temp file was left behind";
}

TEST_F(AtomicWrite, UnwritableFolderLeavesThePreviousFile) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes in any folder";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomically(target(), "new"), InputError);
  fs::permissions(dir_, fs::perms::owner_all);
  EXPECT_EQ(contents(), kGood);
  EXPECT_EQ(files_in_dir(), 1u);
}

// The same failure as root, whom permissions do not stop: the temp file cannot be created.
TEST_F(AtomicWrite, TempFileThatCannotBeCreatedLeavesThePreviousFile) {
  fs::create_directory(target() + ".tmp");
  EXPECT_THROW(write_file_atomically(target(), "new"), InputError);
  EXPECT_EQ(contents(), kGood);
  EXPECT_TRUE(fs::is_directory(target() + ".tmp"));
}

TEST_F(AtomicWrite, MissingFolderIsAnInputError) {
  EXPECT_THROW(write_file_atomically((dir_ / "no" / "such" / "report.txt").string(), "new"), InputError);
  EXPECT_EQ(contents(), kGood);
}

}  // namespace
}  // namespace limiter
