// Crash safety: the writer (cdi_crash_writer) is killed with SIGKILL at random moments, 200 times,
// while this process keeps reading the target. Every read, and the directory after every kill, must
// show a complete spec (the previous or the new one), never a fragment; no file a runtime would read
// (".json"/".yaml") may appear besides the target; leftover temporary files of killed writers are
// swept by the next SyncDirectory. Also: two processes writing one directory at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "cdi/spec_codec.h"
#include "cdi/spec_validation.h"
#include "cdi/writer.h"
#include "crash_specs.h"
#include "cdi_test_util.h"

namespace draforge::cdi {
namespace {

using testing::kCrashFile;
using testing::ListDir;
using testing::ReadFile;
using testing::TempDir;

// 0 = SmallSpec, 1 = LargeSpec, -1 = anything else (a fragment, or unreadable).
int WhichSpec(const std::string& path) {
  static const Spec* const kSmall = new Spec(testing::SmallSpec());
  static const Spec* const kLarge = new Spec(testing::LargeSpec());
  std::string text;
  if (!ReadFile(path, &text)) return -1;
  absl::StatusOr<Spec> spec = DecodeSpec(text);
  if (!spec.ok() || !Validate(*spec).empty()) return -1;
  if (*spec == *kSmall) return 0;
  if (*spec == *kLarge) return 1;
  return -1;
}

// Files a runtime would load: ".json" or ".yaml".
std::vector<std::string> VisibleSpecFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& n : ListDir(dir)) {
    if (n.ends_with(".json") || n.ends_with(".yaml")) out.push_back(n);
  }
  return out;
}

pid_t SpawnWriter(const std::string& dir) {
  const std::string writer = testing::EnvOr("DRAFORGE_CDI_CRASH_WRITER", "");
  const pid_t pid = fork();
  if (pid == 0) {
    execl(writer.c_str(), writer.c_str(), dir.c_str(), kCrashFile, static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// A tmpfs for the crash test when this process may mount one: there fsync costs nothing, so the
// writers' speed does not depend on a shared disk. Elsewhere the test runs on TMPDIR.
class CrashDir {
 public:
  CrashDir() {
    path_ = tmp_.path() + "/mnt";
    mkdir(path_.c_str(), 0755);
    mounted_ = mount("tmpfs", path_.c_str(), "tmpfs", 0, "size=32m,mode=0755") == 0;
  }
  ~CrashDir() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  const std::string& path() const { return path_; }
  bool tmpfs() const { return mounted_; }

 private:
  TempDir tmp_;
  std::string path_;
  bool mounted_ = false;
};

TEST(CdiCrash, KilledWriterNeverLeavesAFragment) {
  const std::string writer = testing::EnvOr("DRAFORGE_CDI_CRASH_WRITER", "");
  ASSERT_FALSE(writer.empty()) << "DRAFORGE_CDI_CRASH_WRITER is not set (run through meson test)";
  CrashDir tmp;
  const std::string dir = tmp.path();
  const std::string target = dir + "/" + kCrashFile;
  ASSERT_TRUE(WriteSpec(dir, kCrashFile, testing::SmallSpec()).ok());

  // Calibrate: how long one writer takes from start to its first completed replacement (it starts by
  // writing the large spec), so that the kills spread over every phase of a write on machines and
  // builds (sanitizers) of any speed.
  long first_write_us = 0;
  {
    ASSERT_EQ(WhichSpec(target), 0);
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    const pid_t pid = SpawnWriter(dir);
    ASSERT_GT(pid, 0);
    while (WhichSpec(target) == 0 && first_write_us < 60000000) {
      usleep(200);
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      first_write_us = (now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000;
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ASSERT_LT(first_write_us, 60000000) << "the writer never completed a write";
    ASSERT_NE(WhichSpec(target), -1);
  }
  ::testing::Test::RecordProperty("first_write_us", static_cast<int>(first_write_us));

  std::mt19937 rng(20261129);
  std::uniform_int_distribution<long> delay_us(0, 2 * first_write_us + 1000);
  int changes = 0, reads = 0;
  int last = WhichSpec(target);
  constexpr int kKills = 200;
  for (int kill_no = 0; kill_no < kKills; ++kill_no) {
    const pid_t pid = SpawnWriter(dir);
    ASSERT_GT(pid, 0);
    // Read while the writer runs, until the chosen moment. Every tenth writer is also let run until
    // it has replaced the file once: the delays come from a calibration at the start, and if the
    // machine gets busier afterwards (CI runs other tests beside this one) no random delay may be
    // long enough for a write, and the progress check below would fail on load, not on behaviour.
    const bool until_written = kill_no % 10 == 9;
    const int at_spawn = last;
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    const long wait_us = delay_us(rng);
    for (;;) {
      const int seen = WhichSpec(target);
      ++reads;
      ASSERT_NE(seen, -1) << "a reader saw a fragment (kill " << kill_no << ")";
      if (seen != last) ++changes;
      last = seen;
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      const long elapsed_us = (now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000;
      if (elapsed_us >= wait_us && (!until_written || seen != at_spawn)) break;
      if (elapsed_us >= 60000000) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        FAIL() << "writer " << kill_no << " did not replace the file within 60 s";
      }
      usleep(300);  // leave the CPU to the writer: the machine may have two cores
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited by itself with status " << WEXITSTATUS(status);
    const int after = WhichSpec(target);
    ASSERT_NE(after, -1) << "a fragment after kill " << kill_no;
    if (after != last) ++changes;
    last = after;
    EXPECT_THAT(VisibleSpecFiles(dir), ::testing::ElementsAre(kCrashFile)) << "after kill " << kill_no;
  }
  // The writers made progress (the test would prove nothing if they never wrote).
  ::testing::Test::RecordProperty("changes", changes);
  ::testing::Test::RecordProperty("reads", reads);
  EXPECT_GT(changes, 10) << reads << " reads";

  // The temporary files of killed writers are theirs alone; the next sync removes them.
  SyncOptions sync;
  sync.owned_prefixes = {SpecFileNamePrefix(testing::SmallSpec().kind)};
  sync.keep = {kCrashFile};
  absl::StatusOr<SyncReport> report = SyncDirectory(dir, {}, sync);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok());
  EXPECT_THAT(ListDir(dir), ::testing::ElementsAre(kCrashFile));
  EXPECT_NE(WhichSpec(target), -1);
}

TEST(CdiCrash, TwoProcessesWritingOneDirectory) {
  TempDir tmp;
  const std::string dir = tmp.path();
  const Spec specs[2] = {testing::SmallSpec(), testing::LargeSpec()};
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Both write the shared file (in opposite phase) and one file of their own.
      const std::string own = TransientSpecFileName(specs[0].kind, "own-" + std::to_string(c));
      for (int i = 0; i < 60; ++i) {
        if (!WriteSpec(dir, kCrashFile, specs[(i + c) % 2]).ok()) _exit(3);
        if (!WriteSpec(dir, own, specs[i % 2]).ok()) _exit(4);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  // Meanwhile, every read sees a whole document.
  std::vector<bool> exited(children.size(), false);
  int reads = 0;
  for (bool all_exited = false; !all_exited;) {
    for (const std::string& n : VisibleSpecFiles(dir)) {
      ASSERT_NE(WhichSpec(dir + "/" + n), -1) << n;
      ++reads;
    }
    all_exited = true;
    for (size_t i = 0; i < children.size(); ++i) {
      if (exited[i]) continue;
      int status = 0;
      if (waitpid(children[i], &status, WNOHANG) == children[i]) {
        exited[i] = true;
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << i << " failed";
      } else {
        all_exited = false;
      }
    }
  }
  EXPECT_GT(reads, 0);
  EXPECT_THAT(ListDir(dir), ::testing::ElementsAre(kCrashFile, TransientSpecFileName(specs[0].kind, "own-0"),
                                                   TransientSpecFileName(specs[0].kind, "own-1")));
  for (const std::string& n : ListDir(dir)) EXPECT_NE(WhichSpec(dir + "/" + n), -1) << n;
}

}  // namespace
}  // namespace draforge::cdi
