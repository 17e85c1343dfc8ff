#include "kube/internal/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/json_parse.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::kube::internal {
namespace {

std::string Str(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return it->value.GetString();
}

// KUBERNETES_EXEC_INFO: the ExecCredential "spec" client-go hands to the plugin.
std::string ExecInfo(const RestConfig& config) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("apiVersion");
  w.String(config.exec->api_version.c_str());
  w.Key("kind");
  w.String("ExecCredential");
  w.Key("spec");
  w.StartObject();
  w.Key("interactive");
  w.Bool(false);
  if (config.exec->provide_cluster_info) {
    w.Key("cluster");
    w.StartObject();
    w.Key("server");
    w.String(config.server.c_str());
    if (!config.tls_server_name.empty()) {
      w.Key("tls-server-name");
      w.String(config.tls_server_name.c_str());
    }
    if (config.insecure_skip_tls_verify) {
      w.Key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!config.ca_pem.empty()) {
      w.Key("certificate-authority-data");
      w.String(absl::Base64Escape(config.ca_pem).c_str());
    }
    if (!config.proxy_url.empty()) {
      w.Key("proxy-url");
      w.String(config.proxy_url.c_str());
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

// Appends `data` to `tail`, keeping at least the last `cap` bytes: memory stays under 2 * cap
// however much a plugin writes, and the copy is amortised.
void AppendTail(std::string& tail, std::string_view data, size_t cap) {
  tail.append(data);
  if (tail.size() > 2 * cap) tail.erase(0, tail.size() - cap);
}

void TrimToTail(std::string& tail, size_t cap) {
  if (tail.size() > cap) tail.erase(0, tail.size() - cap);
}

}  // namespace

absl::StatusOr<ExecCredential> ParseExecCredential(std::string_view output, const ExecConfig& exec) {
  std::string who = absl::StrCat("exec plugin ", exec.command);
  rapidjson::Document doc;
  if (api::JsonParseResult parsed = api::ParseJsonInto<rapidjson::kParseDefaultFlags>(doc, output); !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": output is not a JSON ExecCredential: ", parsed.Message(), " at byte ", parsed.offset));
  }
  if (!doc.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": output is not a JSON ExecCredential"));
  }
  if (Str(doc, "kind") != "ExecCredential") {
    return absl::InvalidArgumentError(absl::StrCat(who, ": kind is \"", Str(doc, "kind"), "\", want ExecCredential"));
  }
  if (Str(doc, "apiVersion") != exec.api_version) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": apiVersion is \"", Str(doc, "apiVersion"), "\", want \"",
                                                   exec.api_version, "\""));
  }
  auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || !status->value.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(who, ": ExecCredential has no status"));
  }
  ExecCredential cred;
  cred.token = Str(status->value, "token");
  cred.client_certificate_pem = Str(status->value, "clientCertificateData");
  cred.client_key_pem = Str(status->value, "clientKeyData");
  if (cred.client_certificate_pem.empty() != cred.client_key_pem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": status.clientCertificateData and status.clientKeyData must be set together"));
  }
  if (cred.token.empty() && cred.client_certificate_pem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": status has neither token nor clientCertificateData/clientKeyData"));
  }
  if (std::string exp = Str(status->value, "expirationTimestamp"); !exp.empty()) {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, exp, &t, &err)) {
      return absl::InvalidArgumentError(
          absl::StrCat(who, ": status.expirationTimestamp \"", exp, "\" is not RFC 3339: ", err));
    }
    cred.expiration = t;
  }
  return cred;
}

absl::StatusOr<ExecCredential> RunExecPlugin(const RestConfig& config) {
  const ExecConfig& exec = *config.exec;
  // The deadline covers the whole run, from before the spawn to the reaped exit status.
  const absl::Time deadline =
      config.exec_timeout == absl::InfiniteDuration() ? absl::InfiniteFuture() : absl::Now() + config.exec_timeout;
  std::vector<std::string> env = config.exec_environment;
  for (const auto& [k, v] : exec.env) env.push_back(absl::StrCat(k, "=", v));
  env.push_back(absl::StrCat("KUBERNETES_EXEC_INFO=", ExecInfo(config)));
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_s = {exec.command};
  argv_s.insert(argv_s.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return absl::InternalError("exec plugin: pipe failed");
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError("exec plugin: pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  // Its own process group, so that a deadline kills what the plugin started too (a shell script's
  // `sleep`, a helper holding the pipes open), not only the process we spawned.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  // PATH lookup uses the PATH in the environment we hand over when the command has no slash.
  std::string path_env;
  for (const auto& e : env) {
    if (e.rfind("PATH=", 0) == 0) path_env = e.substr(5);
  }
  std::string command = exec.command;
  if (command.find('/') == std::string::npos) {
    std::string dirs = path_env.empty() ? "/usr/local/bin:/usr/bin:/bin" : path_env;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = absl::StrCat(dirs.substr(start, end - start), "/", exec.command);
      if (access(candidate.c_str(), X_OK) == 0) {
        command = candidate;
        break;
      }
      start = end + 1;
    }
  }
  int rc = posix_spawn(&pid, command.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::string msg = absl::StrCat("exec plugin: cannot run \"", exec.command, "\": ", std::strerror(rc));
    if (!exec.install_hint.empty()) absl::StrAppend(&msg, "\n", exec.install_hint);
    return absl::FailedPreconditionError(msg);
  }
  // Milliseconds until the deadline for poll(): -1 without one, 0 once it passed.
  auto poll_timeout = [&]() -> int {
    if (deadline == absl::InfiniteFuture()) return -1;
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return 0;
    return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(absl::Ceil(left, absl::Milliseconds(1))),
                                              std::numeric_limits<int>::max()));
  };
  std::string out, err;
  bool timed_out = false, stdout_too_large = false;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[16384];
  while (open_fds > 0 && !timed_out && !stdout_too_large) {
    int ready = poll(fds, 2, poll_timeout());
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (ready == 0) {
      timed_out = true;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      if (i == 1) {
        AppendTail(err, std::string_view(buf, static_cast<size_t>(n)), kExecStderrTailBytes);
      } else if (out.size() + static_cast<size_t>(n) > kExecStdoutLimitBytes) {
        stdout_too_large = true;
        break;
      } else {
        out.append(buf, static_cast<size_t>(n));
      }
    }
  }
  // Both pipes closed is not yet an exit: wait for it until the deadline, too.
  int wstatus = 0;
  bool reaped = false;
  for (absl::Duration nap = absl::Milliseconds(1); !timed_out && !stdout_too_large;) {
    pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) {
      reaped = true;
      break;
    }
    if (r < 0 && errno != EINTR) break;
    int left_ms = poll_timeout();
    if (left_ms == 0) {
      timed_out = true;
      break;
    }
    absl::SleepFor(left_ms < 0 ? nap : std::min(nap, absl::Milliseconds(left_ms)));
    nap = std::min(nap * 2, absl::Milliseconds(50));
  }
  // Killed before it is reaped, so the process group id cannot belong to anyone else yet.
  if (!reaped) kill(-pid, SIGKILL);
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  while (!reaped && waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  TrimToTail(err, kExecStderrTailBytes);
  std::string stderr_part = err.empty() ? "" : absl::StrCat("; its stderr ends with: ", err);
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat("exec plugin ", exec.command, " timed out after ",
                                                    absl::FormatDuration(config.exec_timeout),
                                                    " (its process group was killed)", stderr_part));
  }
  if (stdout_too_large) {
    return absl::ResourceExhaustedError(absl::StrCat("exec plugin ", exec.command, " wrote more than ",
                                                     kExecStdoutLimitBytes, " bytes to stdout (an ExecCredential is "
                                                     "a few KiB; its process group was killed)", stderr_part));
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::InternalError(absl::StrCat("exec plugin ", exec.command, " failed (",
                                            WIFEXITED(wstatus) ? absl::StrCat("exit status ", WEXITSTATUS(wstatus))
                                                               : std::string("killed by a signal"),
                                            ")", err.empty() ? "" : ": ", err));
  }
  return ParseExecCredential(out, exec);
}

}  // namespace draforge::kube::internal
