// Offline tests of how lib/kube runs an exec credential plugin that misbehaves: one that hangs, one
// that writes without end to stderr or stdout. Memory is observed directly: this binary replaces
// the global operator new to record the largest single allocation, so "bounded" is a number, not a
// hope (allocation_meter.cc). Its own binary, so no other test runs under the replaced allocator.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "allocation_meter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/config.h"
#include "kube/internal/exec_credential.h"
#include "temp_dir.h"

namespace draforge::kube {
namespace {

using ::testing::HasSubstr;

using testing::TempDir;

RestConfig ConfigFor(const std::string& plugin) {
  RestConfig config;
  config.server = "https://127.0.0.1:1";
  config.exec = ExecConfig{.api_version = "client.authentication.k8s.io/v1", .command = plugin};
  config.exec_environment = {"PATH=/usr/bin:/bin"};
  return config;
}

// Whether process `pid` is still running (a zombie waiting for its reaper is not).
bool Running(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

// A plugin that hangs (a login prompt nobody answers, a token endpoint that never replies) fails
// the request at its deadline, naming the command, and what it started dies with it.
TEST(ExecPlugin, HangingPluginFailsAtItsDeadlineAndItsProcessGroupIsKilled) {
  TempDir dir;
  std::string plugin = dir.Script("hang.sh", absl::StrCat("#!/bin/sh\necho 'waiting for the browser' >&2\n",
                                                          "sleep 1000 &\necho $! > ", dir.Path("child"),
                                                          "\nwait\n"));
  RestConfig config = ConfigFor(plugin);
  config.exec_timeout = absl::Seconds(2);
  absl::Time start = absl::Now();
  auto cred = internal::RunExecPlugin(config);
  absl::Duration took = absl::Now() - start;
  EXPECT_EQ(cred.status().code(), absl::StatusCode::kDeadlineExceeded) << cred.status();
  EXPECT_THAT(cred.status().message(), HasSubstr(absl::StrCat("exec plugin ", plugin, " timed out after 2s")));
  EXPECT_THAT(cred.status().message(), HasSubstr("waiting for the browser"));
  EXPECT_LT(took, absl::Seconds(2 + 20));  // its deadline, and a generous margin for a loaded machine

  // The background `sleep` was in the plugin's process group: killed too.
  std::ifstream child_file(dir.Path("child"));
  std::string child_text;
  std::getline(child_file, child_text);
  pid_t child = 0;
  ASSERT_TRUE(absl::SimpleAtoi(child_text, &child)) << child_text;
  bool gone = false;
  for (absl::Time end = absl::Now() + absl::Seconds(20); !gone && absl::Now() < end;) {
    gone = !Running(child);
    if (!gone) absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the plugin's child " << child << " outlived the deadline";
  if (!gone) kill(child, SIGKILL);
}

// A plugin that exits but leaves a child holding its stdout open is waited for until the deadline
// too, not for ever.
TEST(ExecPlugin, OrphanHoldingThePipeIsBoundByTheDeadline) {
  TempDir dir;
  std::string plugin = dir.Script("orphan.sh", "#!/bin/sh\nsleep 1000 &\nexit 0\n");
  RestConfig config = ConfigFor(plugin);
  config.exec_timeout = absl::Seconds(1);
  auto cred = internal::RunExecPlugin(config);
  EXPECT_EQ(cred.status().code(), absl::StatusCode::kDeadlineExceeded) << cred.status();
}

// 10 MB on stderr: only a bounded tail is kept, and the message ends with the plugin's last words.
TEST(ExecPlugin, StderrFloodIsCappedToItsTail) {
  TempDir dir;
  std::string plugin = dir.Script(
      "flood.sh", "#!/bin/sh\nhead -c 10000000 /dev/zero | tr '\\0' x >&2\necho >&2\necho 'last words' >&2\nexit 3\n");
  RestConfig config = ConfigFor(plugin);
  draforge::allocation_meter::ResetLargestAllocation();
  auto cred = internal::RunExecPlugin(config);
  size_t largest = draforge::allocation_meter::LargestAllocation();
  EXPECT_EQ(cred.status().code(), absl::StatusCode::kInternal) << cred.status().message().substr(0, 200);
  EXPECT_THAT(cred.status().message(), HasSubstr("exit status 3"));
  EXPECT_THAT(std::string(absl::StripTrailingAsciiWhitespace(cred.status().message())),
              ::testing::EndsWith("last words"));
  EXPECT_LE(cred.status().message().size(), internal::kExecStderrTailBytes + 1024);
  // The stderr buffer never held more than twice its tail (plus a read buffer's worth).
  EXPECT_LT(largest, size_t{256} << 10) << "an allocation of " << largest << " bytes";
}

// An ExecCredential is a few KiB: more than 1 MiB on stdout is refused, not buffered, even when
// it would parse (JSON allows the leading whitespace).
TEST(ExecPlugin, StdoutOverTheLimitIsRefused) {
  TempDir dir;
  std::string plugin = dir.Script("big.sh", R"(#!/bin/sh
head -c 3000000 /dev/zero | tr '\0' ' '
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'
)");
  RestConfig config = ConfigFor(plugin);
  draforge::allocation_meter::ResetLargestAllocation();
  auto cred = internal::RunExecPlugin(config);
  EXPECT_EQ(cred.status().code(), absl::StatusCode::kResourceExhausted) << cred.status();
  EXPECT_THAT(cred.status().message(), HasSubstr(absl::StrCat("exec plugin ", plugin, " wrote more than 1048576 bytes")));
  EXPECT_LE(draforge::allocation_meter::LargestAllocation(), size_t{4} << 20);
}

}  // namespace
}  // namespace draforge::kube
