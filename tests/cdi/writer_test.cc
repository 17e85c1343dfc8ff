// WriteSpec, RemoveSpec and SyncDirectory: atomic replacement, mode 0644 whatever the umask, nothing
// written for an invalid spec, clear errors with the old spec intact on a full disk (a 64 KiB
// tmpfs) and on a read-only directory (a tmpfs remounted read-only). The mount tests need
// CAP_SYS_ADMIN; without it they are skipped with the reason.
#include <gmock/gmock.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "cdi/directory.h"
#include "cdi/spec_codec.h"
#include "cdi/writer.h"
#include "crash_specs.h"
#include "cdi_test_util.h"

namespace draforge::cdi {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::kCrashFile;
using testing::LargeSpec;
using testing::ListDir;
using testing::ReadFile;
using testing::SmallSpec;
using testing::TempDir;

// Restores the umask on scope exit.
class Umask {
 public:
  explicit Umask(mode_t m) : old_(umask(m)) {}
  ~Umask() { umask(old_); }

 private:
  mode_t old_;
};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

TEST(CdiWrite, WritesTheEncodedSpecWithMode0644UnderAnyUmask) {
  Umask mask(077);
  TempDir tmp;
  absl::StatusOr<WriteResult> r = WriteSpec(tmp.path(), kCrashFile, SmallSpec());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, WriteResult::kWritten);
  const std::string path = tmp.path() + "/" + kCrashFile;
  EXPECT_EQ(ModeOf(path), 0644u);
  std::string text;
  ASSERT_TRUE(ReadFile(path, &text));
  EXPECT_EQ(text, EncodeSpec(SmallSpec()));
  EXPECT_THAT(ListDir(tmp.path()), ElementsAre(kCrashFile)) << "no temporary file is left";
}

TEST(CdiWrite, SameBytesLeaveTheFileAlone) {
  TempDir tmp;
  ASSERT_TRUE(WriteSpec(tmp.path(), kCrashFile, SmallSpec()).ok());
  struct stat before, after;
  ASSERT_EQ(stat((tmp.path() + "/" + kCrashFile).c_str(), &before), 0);
  absl::StatusOr<WriteResult> r = WriteSpec(tmp.path(), kCrashFile, SmallSpec());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, WriteResult::kUnchanged);
  ASSERT_EQ(stat((tmp.path() + "/" + kCrashFile).c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "an unchanged spec is not replaced";
  r = WriteSpec(tmp.path(), kCrashFile, LargeSpec());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, WriteResult::kWritten);
  ASSERT_EQ(stat((tmp.path() + "/" + kCrashFile).c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino) << "a changed spec is a new file renamed into place";
}

TEST(CdiWrite, AnInvalidSpecWritesNothingAndKeepsTheOldOne) {
  TempDir tmp;
  ASSERT_TRUE(WriteSpec(tmp.path(), kCrashFile, SmallSpec()).ok());
  Spec bad = SmallSpec();
  bad.devices[0].container_edits.env = {"NOT-AN-ASSIGNMENT"};
  absl::StatusOr<WriteResult> r = WriteSpec(tmp.path(), kCrashFile, bad);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr(kCrashFile));
  EXPECT_THAT(r.status().message(), HasSubstr("$.devices[0].containerEdits.env[0]: invalid environment variable"));
  std::string text;
  ASSERT_TRUE(ReadFile(tmp.path() + "/" + kCrashFile, &text));
  EXPECT_EQ(text, EncodeSpec(SmallSpec()));
  EXPECT_THAT(ListDir(tmp.path()), ElementsAre(kCrashFile));
}

TEST(CdiWrite, AboveTheCeilingIsAnErrorNotADowngrade) {
  TempDir tmp;
  Spec s = SmallSpec();
  s.devices[0].annotations["example.com/a"] = "b";
  s.version = "0.6.0";
  absl::StatusOr<WriteResult> r = WriteSpec(tmp.path(), kCrashFile, s);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("requires cdiVersion 0.6.0, above the maximum 0.5.0"));
  EXPECT_THAT(ListDir(tmp.path()), IsEmpty());
  WriteOptions newer;
  newer.validate.max_version = "0.6.0";
  EXPECT_TRUE(WriteSpec(tmp.path(), kCrashFile, s, newer).ok());
}

TEST(CdiWrite, FileNamesRuntimesWouldMisreadAreRefused) {
  TempDir tmp;
  for (const char* name : {"", "../escape.json", "sub/dir.json", ".hidden.json", "spec.yaml", "spec.tmp"}) {
    EXPECT_EQ(WriteSpec(tmp.path(), name, SmallSpec()).status().code(), absl::StatusCode::kInvalidArgument) << name;
  }
  EXPECT_THAT(ListDir(tmp.path()), IsEmpty());
}

TEST(CdiWrite, CreatesTheDirectoryReadableByEveryone) {
  Umask mask(077);
  TempDir tmp;
  const std::string dir = tmp.path() + "/var/run/cdi";
  ASSERT_TRUE(WriteSpec(dir, kCrashFile, SmallSpec()).ok());
  EXPECT_EQ(ModeOf(dir), 0755u);
  WriteOptions no_create;
  no_create.create_directory = false;
  EXPECT_EQ(WriteSpec(tmp.path() + "/missing", kCrashFile, SmallSpec(), no_create).status().code(),
            absl::StatusCode::kNotFound);
  testing::WriteFile(tmp.path() + "/file", "x");
  EXPECT_EQ(WriteSpec(tmp.path() + "/file", kCrashFile, SmallSpec()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CdiWrite, RemoveIsIdempotent) {
  TempDir tmp;
  ASSERT_TRUE(WriteSpec(tmp.path(), kCrashFile, SmallSpec()).ok());
  EXPECT_TRUE(RemoveSpec(tmp.path(), kCrashFile).ok());
  EXPECT_THAT(ListDir(tmp.path()), IsEmpty());
  EXPECT_TRUE(RemoveSpec(tmp.path(), kCrashFile).ok());
  EXPECT_TRUE(RemoveSpec(tmp.path() + "/missing", kCrashFile).ok());
}

// A leftover temporary file is recognised by its name and swept when no writer holds its lock. The
// pid once in the name meant nothing across containers: a live process with that pid in another
// pid namespace kept a dead writer's file forever.
TEST(CdiSync, SweepsTemporaryFilesOfDeadWritersOnly) {
  TempDir tmp;
  const std::string dead = std::string(".") + kCrashFile + ".0123456789abcdef.tmp";
  // The older name, with a pid that is running here (our parent): its writer is gone all the same.
  const std::string dead_pid_named = std::string(".") + kCrashFile + "." + std::to_string(getppid()) +
                                     ".fedcba9876543210.tmp";
  const std::string live = std::string(".") + kCrashFile + ".00112233445566ff.tmp";
  const std::string foreign = ".nvidia.com-gpu.json.1.0.tmp";
  const std::string not_ours = std::string(".") + kCrashFile + ".notrandom.tmp";
  for (const std::string& n : {dead, dead_pid_named, live, foreign, not_ours}) {
    testing::WriteFile(tmp.path() + "/" + n, "partial");
  }
  const int live_fd = open((tmp.path() + "/" + live).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(live_fd, 0);
  ASSERT_EQ(flock(live_fd, LOCK_EX), 0);  // a writer still at work holds it
  absl::StatusOr<SyncReport> r = SyncDirectory(tmp.path(), {{kCrashFile, SmallSpec()}});
  close(live_fd);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->written, ElementsAre(kCrashFile));
  EXPECT_THAT(r->removed, ElementsAre(dead, dead_pid_named));
  EXPECT_THAT(ListDir(tmp.path()), ElementsAre(live, not_ours, foreign, kCrashFile));
}

// RemoveSpec takes a spec name, never a path: "../x.yaml" used to delete a file outside the CDI
// directory.
TEST(CdiWrite, RemoveRefusesPathsAndHiddenNames) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cdi";
  ASSERT_TRUE(WriteSpec(dir, kCrashFile, SmallSpec()).ok());
  testing::WriteFile(tmp.path() + "/x.yaml", "outside");
  testing::WriteFile(tmp.path() + "/x.json", "outside");
  for (const char* name : {"../x.yaml", "../x.json", "", ".x.yaml", "sub/x.json", "x.tmp", "x"}) {
    EXPECT_EQ(RemoveSpec(dir, name).code(), absl::StatusCode::kInvalidArgument) << name;
  }
  EXPECT_THAT(ListDir(tmp.path()), ElementsAre("cdi", "x.json", "x.yaml"));
  testing::WriteFile(dir + "/theirs.yaml", "kind: a.com/b");
  EXPECT_TRUE(RemoveSpec(dir, "theirs.yaml").ok());
  EXPECT_THAT(ListDir(dir), ElementsAre(kCrashFile));
}

TEST(CdiSync, TheSameFileTwiceIsAFailureOfThatFile) {
  TempDir tmp;
  absl::StatusOr<SyncReport> r = SyncDirectory(tmp.path(), {{kCrashFile, SmallSpec()}, {kCrashFile, LargeSpec()}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed.size(), 2u);
  EXPECT_THAT(ListDir(tmp.path()), IsEmpty());
}

TEST(CdiDirectory, DuplicateDevicesAcrossFilesAreReportedOnBoth) {
  TempDir tmp;
  ASSERT_TRUE(WriteSpec(tmp.path(), "k8s.crash.sim.draforge.io-claim_a.json", SmallSpec()).ok());
  ASSERT_TRUE(WriteSpec(tmp.path(), "k8s.crash.sim.draforge.io-claim_b.json", SmallSpec()).ok());
  testing::WriteFile(tmp.path() + "/ignored.yml", "runtimes ignore .yml");
  testing::WriteFile(tmp.path() + "/.x.json.1.2.tmp", "leftover");
  absl::StatusOr<DirectoryReport> r = ValidateDirectory(tmp.path());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  ASSERT_EQ(r->files.size(), 3u);
  EXPECT_EQ(r->files[0].file, ".x.json.1.2.tmp");
  EXPECT_THAT(r->files[0].problems[0].message, HasSubstr("leftover temporary file"));
  for (size_t i = 1; i < 3; ++i) {
    ASSERT_EQ(r->files[i].problems.size(), 1u) << r->files[i].file;
    EXPECT_EQ(r->files[i].problems[0].path, "$.devices[0].name");
    EXPECT_THAT(r->files[i].problems[0].message, HasSubstr("is also defined in k8s.crash.sim.draforge.io-claim_"));
  }
  ValidateOptions compat;
  compat.strictness = Strictness::kCompat;
  r = ValidateDirectory(tmp.path(), compat);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->files.size(), 2u) << "compat does not audit temporary files";
  EXPECT_EQ(ValidateDirectory(tmp.path() + "/missing").status().code(), absl::StatusCode::kNotFound);
}

// A small tmpfs mounted for one test; skipped when this process may not mount.
class TmpfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mnt_ = tmp_.path() + "/mnt";
    ASSERT_EQ(mkdir(mnt_.c_str(), 0755), 0);
    if (mount("tmpfs", mnt_.c_str(), "tmpfs", 0, "size=64k,mode=0755") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "): needs CAP_SYS_ADMIN";
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) umount2(mnt_.c_str(), MNT_DETACH);
  }

  TempDir tmp_;
  std::string mnt_;
  bool mounted_ = false;
};

TEST_F(TmpfsTest, FullDiskIsAClearErrorAndTheOldSpecStays) {
  const std::string dir = mnt_ + "/cdi";
  ASSERT_TRUE(WriteSpec(dir, kCrashFile, SmallSpec()).ok());
  // LargeSpec is about 256 KiB: it cannot fit in 64 KiB.
  absl::StatusOr<WriteResult> r = WriteSpec(dir, kCrashFile, LargeSpec());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr(kCrashFile));
  EXPECT_THAT(r.status().message(), HasSubstr("No space left on device"));
  std::string text;
  ASSERT_TRUE(ReadFile(dir + "/" + kCrashFile, &text));
  EXPECT_EQ(text, EncodeSpec(SmallSpec()));
  EXPECT_THAT(ListDir(dir), ElementsAre(kCrashFile)) << "the partial temporary file is removed";
  // Through SyncDirectory: the failure is reported, the other file is written.
  const std::string other = TransientSpecFileName(SmallSpec().kind, "other");
  absl::StatusOr<SyncReport> s = SyncDirectory(dir, {{kCrashFile, LargeSpec()}, {other, SmallSpec()}});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->failed.size(), 1u);
  EXPECT_EQ(s->failed[0].file_name, kCrashFile);
  EXPECT_THAT(s->written, ElementsAre(other));
  ASSERT_TRUE(ReadFile(dir + "/" + kCrashFile, &text));
  EXPECT_EQ(text, EncodeSpec(SmallSpec()));
}

TEST_F(TmpfsTest, ReadOnlyDirectoryIsAClearErrorAndTheOldSpecStays) {
  const std::string dir = mnt_;
  ASSERT_TRUE(WriteSpec(dir, kCrashFile, SmallSpec()).ok());
  ASSERT_EQ(mount("tmpfs", mnt_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=64k,mode=0755"), 0)
      << std::strerror(errno);
  absl::StatusOr<WriteResult> r = WriteSpec(dir, kCrashFile, LargeSpec());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("Read-only file system"));
  EXPECT_THAT(r.status().message(), HasSubstr(kCrashFile));
  std::string text;
  ASSERT_TRUE(ReadFile(dir + "/" + kCrashFile, &text));
  EXPECT_EQ(text, EncodeSpec(SmallSpec()));
  // An unchanged spec needs no write, so it succeeds even read-only.
  EXPECT_TRUE(WriteSpec(dir, kCrashFile, SmallSpec()).ok());
  // Removing a stale spec fails clearly too, and the file stays.
  SyncOptions sync;
  sync.owned_prefixes = {SpecFileNamePrefix(SmallSpec().kind)};
  absl::StatusOr<SyncReport> s = SyncDirectory(dir, {}, sync);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->failed.size(), 1u);
  EXPECT_THAT(s->failed[0].status.message(), HasSubstr("Read-only file system"));
  EXPECT_THAT(ListDir(dir), ElementsAre(kCrashFile));
  EXPECT_EQ(RemoveSpec(dir, kCrashFile).code(), absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace draforge::cdi
