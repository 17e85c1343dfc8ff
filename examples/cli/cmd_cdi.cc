// draforge cdi generate|validate|audit: CDI specs for the claims allocated on a node, validation of
// CDI spec files and directories as container runtimes read them, and the audit of a node's CDI
// directory against the claims allocated on the node.
#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cdi/audit.h"
#include "cdi/directory.h"
#include "cdi/node_specs.h"
#include "cdi/spec_codec.h"
#include "cdi/spec_validation.h"
#include "cdi/version.h"
#include "cdi/writer.h"
#include "commands.h"
#include "common/status.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace draforge::cli {
namespace {

constexpr char kCdiUsage[] =
    "  draforge cdi generate --node NODE -f FILE... (--out DIR | --dry-run) [options]\n"
    "  draforge cdi validate [--strict] [--max-version V] [-o text|json] FILE|DIR...\n"
    "  draforge cdi audit --node NODE -f FILE... [generate's spec flags] [-o text|json] DIR\n"
    "Run `draforge cdi <command> --help` for flags.";

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void JStr(JsonWriter& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

// The bytes of FILE, or of standard input for "-".
absl::StatusOr<std::string> ReadSource(const std::string& source) {
  std::ostringstream text;
  if (source == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(source, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", source));
  text << in.rdbuf();
  if (in.bad()) return absl::UnavailableError(absl::StrCat("cannot read ", source));
  return text.str();
}

bool CheckVersion(const std::string& v, Io io) {
  if (cdi::IsKnownVersion(v)) return true;
  io.err << "error: --max-version: \"" << v << "\" is not a known CDI version (known:";
  for (const std::string& k : cdi::KnownVersions()) io.err << " " << k;
  io.err << ")\n";
  return false;
}

// The flags that decide which specs a node's claims get; generate and audit share them so that an
// audit judges a directory by the rules it was written with.
void AddBuildFlags(std::vector<FlagSpec>& specs) {
  specs.push_back({{"--driver"}, true, "only this driver's devices (repeatable; default: every driver)"});
  specs.push_back({{"--vendor"}, true, "the kind's vendor (default: k8s.<driver>)"});
  specs.push_back({{"--class"}, true, "the kind's class (default: draforge)"});
  specs.push_back({{"--metadata-dir"}, true, "also bind-mount DIR/<CDI device name>.json read-only at /var/run/draforge/devices/<request>/<device>.json"});
  specs.push_back({{"--max-version"}, true, "the newest cdiVersion the node's runtimes accept (default 0.5.0)"});
}

bool BuildOptionsFromFlags(const Flags& flags, Io io, cdi::BuildOptions& options) {
  options.drivers = flags.All("--driver");
  options.max_version = flags.GetOr("--max-version", cdi::kDefaultMaxVersion);
  if (!CheckVersion(options.max_version, io)) return false;
  cdi::DriverRule rule;
  rule.vendor = flags.GetOr("--vendor", "");
  rule.cdi_class = flags.GetOr("--class", rule.cdi_class);
  rule.metadata_host_dir = flags.GetOr("--metadata-dir", "");
  options.rules.push_back(rule);
  return true;
}

int RunGenerate(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--node"}, true, "the node whose allocated claims get specs (required)"});
  specs.push_back({{"--out"}, true, "the CDI directory to write (created 0755 if missing)"});
  specs.push_back({{"--dry-run"}, false, "print the spec documents instead of writing them"});
  AddBuildFlags(specs);
  specs.push_back({{"-o", "--output"}, true, "text (default) or json: the CDI device IDs per claim and request"});
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge cdi generate --node NODE -f FILE... (--out DIR | --dry-run)", io,
                            code);
  if (!flags) return code;
  const std::optional<std::string> format = OutputFormat(*flags, "text", {"text", "json"}, io);
  if (!format) return kExitBadInput;
  if (!flags->positional().empty()) {
    io.err << "error: unexpected argument \"" << flags->positional().front() << "\"\n";
    return kExitBadInput;
  }
  const std::string node = flags->GetOr("--node", "");
  if (node.empty()) {
    io.err << "error: --node is required\n";
    return kExitBadInput;
  }
  const std::string out_dir = flags->GetOr("--out", "");
  const bool dry_run = flags->Has("--dry-run");
  if (out_dir.empty() == !dry_run) {
    io.err << "error: give exactly one of --out DIR and --dry-run\n";
    return kExitBadInput;
  }
  cdi::BuildOptions options;
  if (!BuildOptionsFromFlags(*flags, io, options)) return kExitBadInput;

  store::Cluster cluster;
  if (!LoadIntoCluster(*flags, io, cluster)) return kExitBadInput;
  absl::StatusOr<cdi::NodeSpecs> built = cdi::BuildSpecsForNode(*cluster.snapshot(), node, options);
  if (!built.ok()) {
    io.err << "error: " << built.status().message() << "\n";
    return kExitBadInput;
  }
  for (const cdi::ClaimFailure& f : built->failed) io.err << "error: " << f.message << "\n";

  cdi::SyncReport report;
  if (!dry_run) {
    cdi::WriteOptions write;
    write.validate.max_version = options.max_version;
    absl::StatusOr<cdi::SyncReport> synced =
        cdi::SyncDirectory(out_dir, built->Files(), built->MakeSyncOptions(write));
    if (!synced.ok()) {
      io.err << "error: " << synced.status().message() << "\n";
      return kExitError;
    }
    report = *std::move(synced);
    for (const cdi::SyncFailure& f : report.failed) io.err << "error: " << f.status.message() << "\n";
  }

  if (*format == "json") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    w.Key("node");
    JStr(w, node);
    w.Key("claims");
    w.StartArray();
    for (const cdi::ClaimSpec& c : built->specs) {
      w.StartObject();
      w.Key("namespace");
      JStr(w, c.claim_namespace);
      w.Key("name");
      JStr(w, c.claim_name);
      w.Key("uid");
      JStr(w, c.claim_uid);
      w.Key("driver");
      JStr(w, c.driver);
      w.Key("file");
      JStr(w, c.file.file_name);
      w.Key("cdiVersion");
      JStr(w, c.file.spec.version);
      w.Key("requests");
      w.StartArray();
      for (const cdi::RequestDevices& r : c.requests) {
        w.StartObject();
        w.Key("request");
        JStr(w, r.request);
        w.Key("cdiDeviceIDs");
        w.StartArray();
        for (const std::string& id : r.cdi_device_ids) JStr(w, id);
        w.EndArray();
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.Key("failed");
    w.StartArray();
    for (const cdi::ClaimFailure& f : built->failed) JStr(w, f.message);
    for (const cdi::SyncFailure& f : report.failed) JStr(w, SV(f.status.message()));
    w.EndArray();
    auto list = [&](const char* key, const std::vector<std::string>& v) {
      w.Key(key);
      w.StartArray();
      for (const std::string& s : v) JStr(w, s);
      w.EndArray();
    };
    list("written", report.written);
    list("unchanged", report.unchanged);
    list("removed", report.removed);
    w.EndObject();
    io.out << buf.GetString() << "\n";
  } else if (dry_run) {
    for (const cdi::ClaimSpec& c : built->specs) {
      io.out << "# " << c.file.file_name << "\n" << cdi::EncodeSpec(c.file.spec);
    }
  } else {
    for (const cdi::ClaimSpec& c : built->specs) {
      for (const cdi::RequestDevices& r : c.requests) {
        io.out << c.claim_namespace << "/" << c.claim_name << " " << r.request << ":";
        for (const std::string& id : r.cdi_device_ids) io.out << " " << id;
        io.out << "\n";
      }
    }
    io.out << report.written.size() << " written, " << report.unchanged.size() << " unchanged, "
           << report.removed.size() << " removed, " << (built->failed.size() + report.failed.size())
           << " failed\n";
  }
  return built->failed.empty() && report.failed.empty() ? kExitOk : kExitError;
}

int RunValidateSpecs(const Args& args, Io io) {
  std::vector<FlagSpec> specs = {
      {{"--strict"}, false, "DRAForge's writer rules too (canonical names, absolute paths, minimum version)"},
      {{"--max-version"}, true, "the newest cdiVersion the runtimes accept (default 1.1.0; --strict: 0.5.0)"},
      {{"-o", "--output"}, true, "text (default) or json"},
  };
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, "draforge cdi validate [--strict] [--max-version V] [-o text|json] FILE|DIR...",
                            io, code);
  if (!flags) return code;
  const std::optional<std::string> format = OutputFormat(*flags, "text", {"text", "json"}, io);
  if (!format) return kExitBadInput;
  if (flags->positional().empty()) {
    io.err << "error: no FILE or DIR given\nusage: draforge cdi validate [--strict] [--max-version V] FILE|DIR...\n";
    return kExitBadInput;
  }
  cdi::ValidateOptions options;
  options.strictness = flags->Has("--strict") ? cdi::Strictness::kStrict : cdi::Strictness::kCompat;
  options.max_version =
      flags->GetOr("--max-version", flags->Has("--strict") ? cdi::kDefaultMaxVersion : cdi::kLatestVersion);
  if (!CheckVersion(options.max_version, io)) return kExitBadInput;

  std::vector<cdi::FileReport> reports;  // file: the path as given, or DIR/name
  bool unreadable = false;
  for (const std::string& arg : flags->positional()) {
    struct stat st;
    if (stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      absl::StatusOr<cdi::DirectoryReport> dir = cdi::ValidateDirectory(arg, options);
      if (!dir.ok()) {
        io.err << "error: " << dir.status().message() << "\n";
        unreadable = true;
        continue;
      }
      for (cdi::FileReport& f : dir->files) {
        f.file = arg + (arg.empty() || arg.back() != '/' ? "/" : "") + f.file;
        reports.push_back(std::move(f));
      }
      continue;
    }
    absl::StatusOr<std::string> text = ReadSource(arg);
    if (!text.ok()) {
      io.err << "error: " << text.status().message() << "\n";
      unreadable = true;
      continue;
    }
    reports.push_back({arg, cdi::ValidateDocument(*text, cdi::FormatForFileName(arg), options)});
  }
  size_t invalid = 0;
  for (const cdi::FileReport& f : reports) invalid += f.problems.empty() ? 0 : 1;
  if (*format == "json") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.SetIndent(' ', 2);
    w.StartArray();
    for (const cdi::FileReport& f : reports) {
      w.StartObject();
      w.Key("file");
      JStr(w, f.file);
      w.Key("valid");
      w.Bool(f.problems.empty());
      w.Key("problems");
      w.StartArray();
      for (const cdi::Problem& p : f.problems) {
        w.StartObject();
        w.Key("path");
        JStr(w, p.path);
        w.Key("message");
        JStr(w, p.message);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    io.out << buf.GetString() << "\n";
  } else {
    for (const cdi::FileReport& f : reports) {
      if (f.problems.empty()) {
        io.out << f.file << ": valid\n";
        continue;
      }
      for (const cdi::Problem& p : f.problems) io.out << f.file << ": " << p.path << ": " << p.message << "\n";
    }
    io.out << reports.size() - invalid << " valid, " << invalid << " invalid\n";
  }
  if (unreadable) return kExitError;
  return invalid == 0 ? kExitOk : kExitBadInput;
}

// Exit status of an audit that found differences: a result, like "unschedulable", not an error.
constexpr int kExitDrift = 1;

int RunAudit(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"--node"}, true, "the node whose allocated claims the directory should hold (required)"});
  AddBuildFlags(specs);
  specs.push_back({{"-o", "--output"}, true, "text (default) or json"});
  constexpr char kUsage[] = "draforge cdi audit --node NODE -f FILE... [flags] DIR";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, kUsage, io, code);
  if (!flags) return code;
  const std::optional<std::string> format = OutputFormat(*flags, "text", {"text", "json"}, io);
  if (!format) return kExitBadInput;
  if (flags->positional().size() != 1) {
    io.err << "error: give exactly one CDI directory\nusage: " << kUsage << "\n";
    return kExitBadInput;
  }
  const std::string dir = flags->positional().front();
  const std::string node = flags->GetOr("--node", "");
  if (node.empty()) {
    io.err << "error: --node is required\n";
    return kExitBadInput;
  }
  cdi::BuildOptions options;
  if (!BuildOptionsFromFlags(*flags, io, options)) return kExitBadInput;
  store::Cluster cluster;
  if (!LoadIntoCluster(*flags, io, cluster)) return kExitBadInput;
  absl::StatusOr<cdi::AuditReport> report = cdi::AuditDirectory(dir, *cluster.snapshot(), node, options);
  if (!report.ok()) {
    io.err << "error: " << report.status().message() << "\n";
    return absl::IsInvalidArgument(report.status()) ? kExitBadInput : kExitError;
  }
  const std::string prefix = dir + (dir.empty() || dir.back() != '/' ? "/" : "");
  if (*format == "json") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    w.Key("node");
    JStr(w, node);
    w.Key("directory");
    JStr(w, dir);
    w.Key("inSync");
    w.StartArray();
    for (const std::string& f : report->in_sync) JStr(w, f);
    w.EndArray();
    w.Key("findings");
    w.StartArray();
    for (const cdi::AuditFinding& f : report->findings) {
      w.StartObject();
      w.Key("status");
      JStr(w, cdi::AuditStatusName(f.status));
      w.Key("file");
      JStr(w, f.file);
      w.Key("namespace");
      JStr(w, f.claim_namespace);
      w.Key("name");
      JStr(w, f.claim_name);
      w.Key("uid");
      JStr(w, f.claim_uid);
      w.Key("driver");
      JStr(w, f.driver);
      w.Key("message");
      JStr(w, f.message);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    io.out << buf.GetString() << "\n";
  } else {
    for (const cdi::AuditFinding& f : report->findings) {
      io.out << (f.file.empty() ? std::string("(no file)") : prefix + f.file) << ": "
             << cdi::AuditStatusName(f.status) << ": " << f.message << "\n";
    }
    io.out << report->in_sync.size() << " in sync, " << report->Count(cdi::AuditStatus::kStale) << " stale, "
           << report->Count(cdi::AuditStatus::kMissing) << " missing, "
           << report->Count(cdi::AuditStatus::kOutOfDate) << " out of date, "
           << report->Count(cdi::AuditStatus::kFailed) << " failed\n";
  }
  return report->ok() ? kExitOk : kExitDrift;
}

}  // namespace

int RunCdi(const Args& args, Io io) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? io.err : io.out) << "usage:\n" << kCdiUsage << "\n";
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "generate") return RunGenerate(rest, io);
  if (args[0] == "validate") return RunValidateSpecs(rest, io);
  if (args[0] == "audit") return RunAudit(rest, io);
  io.err << "error: unknown cdi command \"" << args[0] << "\" (generate, validate, audit)\nusage:\n" << kCdiUsage << "\n";
  return kExitBadInput;
}

}  // namespace draforge::cli
