#include "host/util/user_paths.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

// Found by the bad-input campaign (issue 33): khost report -o wrote a temporary file and renamed
// it over the target, so a link, a FIFO or a device (as root, /dev/null) became a plain file.
TEST_CASE("a user-named file is written as a shell's redirection would write it") {
  test::UnitTempDir tmp;
  // A new file, and a regular file replaced, keeping its mode.
  REQUIRE(WriteUserFile(tmp / "new.txt", "one\n").ok());
  CHECK(ReadFile(tmp / "new.txt").value() == "one\n");
  REQUIRE(::chmod((tmp / "new.txt").c_str(), 0600) == 0);
  REQUIRE(WriteUserFile(tmp / "new.txt", "two\n").ok());
  CHECK(ReadFile(tmp / "new.txt").value() == "two\n");
  struct stat st;
  REQUIRE(::stat((tmp / "new.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // A link: what it names is written, the link stays a link; a dangling one creates its target.
  fs::create_symlink("new.txt", tmp / "link");
  REQUIRE(WriteUserFile(tmp / "link", "three\n").ok());
  CHECK(fs::is_symlink(tmp / "link"));
  CHECK(ReadFile(tmp / "new.txt").value() == "three\n");
  fs::create_symlink(tmp / "sub/../made.txt", tmp / "dangling");
  fs::create_directory(tmp / "sub");
  REQUIRE(WriteUserFile(tmp / "dangling", "four\n").ok());
  CHECK(fs::is_symlink(tmp / "dangling"));
  CHECK(ReadFile(tmp / "made.txt").value() == "four\n");
  // A FIFO is written into (a reader takes it), never replaced.
  REQUIRE(::mkfifo((tmp / "fifo").c_str(), 0600) == 0);
  auto reader = OpenFile(tmp / "fifo", O_RDONLY | O_NONBLOCK);
  REQUIRE(reader.ok());
  REQUIRE(WriteUserFile(tmp / "fifo", "five\n").ok());
  char buf[16] = {};
  CHECK(::read(reader->get(), buf, sizeof buf) == 5);
  CHECK(std::string(buf) == "five\n");
  CHECK(fs::is_fifo(tmp / "fifo"));
  // /dev/stdout, /dev/fd/N of a pipe (a magic link to "pipe:[...]", which only the kernel can
  // follow): written into the pipe.
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const ScopedFd pipe_in(pipe_fds[0]), pipe_out(pipe_fds[1]);
  REQUIRE(WriteUserFile("/proc/self/fd/" + std::to_string(pipe_out.get()), "seven\n").ok());
  char piped[16] = {};
  CHECK(::read(pipe_in.get(), piped, sizeof piped) == 6);
  CHECK(std::string(piped) == "seven\n");
  // One of this process's descriptors on a regular file, opened to append (`>> log`): appended
  // to through it, the file never replaced.
  REQUIRE(WriteFileAtomic(tmp / "log", "old\n").ok());
  auto log = OpenFile(tmp / "log", O_WRONLY | O_APPEND);
  REQUIRE(log.ok());
  REQUIRE(WriteUserFile("/dev/fd/" + std::to_string(log->get()), "new\n").ok());
  CHECK(ReadFile(tmp / "log").value() == "old\nnew\n");
  // A character device: /dev/null stays the device.
  REQUIRE(WriteUserFile("/dev/null", "six\n").ok());
  CHECK(fs::is_character_file("/dev/null"));
  // A directory is refused, named; a loop of links too.
  CHECK(WriteUserFile(tmp / "sub", "x").message() ==
        tmp / "sub" + " is a directory, not a file to write");
  fs::create_symlink("loop2", tmp / "loop1");
  fs::create_symlink("loop1", tmp / "loop2");
  CHECK(WriteUserFile(tmp / "loop1", "x").message().find("Too many levels of symbolic links") !=
        std::string::npos);
}

// Found by the bad-input campaign (issue 33): an elf_path that is a link under bin/ to
// /etc/passwd was followed and the file uploaded to the agent.
TEST_CASE("files are read beneath a root: links inside it are followed, a link out of it refused") {
  test::UnitTempDir tmp;
  const std::string root = tmp / "root";
  fs::create_directories(root + "/k/run/bin");
  fs::create_directories(tmp / "outside");
  REQUIRE(WriteFileAtomic(root + "/k/run/bin/real.elf", "ELF").ok());
  REQUIRE(WriteFileAtomic(tmp / "outside/secret", "secret").ok());
  // Inside: relative and absolute links, a linked directory.
  fs::create_symlink("real.elf", root + "/k/run/bin/rel.elf");
  fs::create_symlink(root + "/k/run/bin/real.elf", root + "/k/run/bin/abs.elf");
  fs::create_symlink("run/bin", root + "/k/linked");
  for (const char* rel : {"k/run/bin/real.elf", "k/run/bin/rel.elf", "k/run/bin/abs.elf",
                          "k/linked/real.elf", "k/linked/abs.elf"}) {
    CAPTURE(rel);
    auto text = ReadBeneath(root, rel);
    REQUIRE(text.ok());
    CHECK(*text == "ELF");
  }
  // Out of it: a file link, a directory link, a relative one through '..', a chain.
  fs::create_symlink(tmp / "outside/secret", root + "/k/run/bin/passwd.elf");
  fs::create_symlink("../../../outside", root + "/k/run/data");
  fs::create_symlink("passwd.elf", root + "/k/run/bin/chain.elf");
  CHECK(ReadBeneath(root, "k/run/bin/passwd.elf").status().message() ==
        root + "/k/run/bin/passwd.elf is a link to " + (tmp / "outside/secret") + ", outside " +
            root + " (only what resolves inside it is read)");
  CHECK(ReadBeneath(root, "k/run/data/secret")
            .status()
            .message()
            .starts_with(root + "/k/run/data is a link to " + (tmp / "outside") + ", outside"));
  CHECK(ReadBeneath(root, "k/run/bin/chain.elf")
            .status()
            .message()
            .starts_with(root + "/k/run/bin/chain.elf is a link to " + (tmp / "outside/secret")));
  CHECK(ReadBeneath(root, "k/run/bin/missing.elf").status().code() == ErrorCode::kNotFound);
  CHECK_FALSE(ReadBeneath(root, "../outside/secret").ok());
  // For a file to be written: the part that exists must resolve inside.
  CHECK(CheckBeneath(root, "k/run/perf_stats.csv").ok());
  CHECK(CheckBeneath(root, "k/run/new/dir/perf_stats.csv").ok());
  CHECK_FALSE(CheckBeneath(root, "k/run/data/perf_stats.csv").ok());
  CHECK_FALSE(CheckBeneath(root, "k/run/bin/passwd.elf").ok());
}

}  // namespace
}  // namespace ktune::host
