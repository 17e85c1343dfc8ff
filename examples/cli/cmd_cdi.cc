// draforge cdi generate|validate|audit: CDI specs for the claims allocated on a node, validation of
// CDI spec files and directories as container runtimes read them, and the audit of a node's CDI
// directory against the claims allocated on the node.
#include <sys/stat.h>

#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "draforge/draforge.hpp"
#include "rapidjson/document.h"
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

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  return d;
}

// The released cdiVersions, oldest first (draforge_cdi_known_versions_json).
std::vector<std::string> KnownVersions() {
  std::vector<std::string> out;
  auto known = CdiKnownVersionsJson();
  if (!known.ok()) return out;
  const rapidjson::Document d = ParseJson(*known);
  for (const auto& v : d.GetArray()) out.emplace_back(v.GetString(), v.GetStringLength());
  return out;
}

bool CheckVersion(const std::string& v, const std::vector<std::string>& known, Io io) {
  for (const std::string& k : known) {
    if (k == v) return true;
  }
  io.err << "error: --max-version: \"" << v << "\" is not a known CDI version (known:";
  for (const std::string& k : known) io.err << " " << k;
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

bool BuildOptionsFromFlags(const Flags& flags, Io io, CdiOptions& options) {
  for (const std::string& d : flags.All("--driver")) options.drivers += (options.drivers.empty() ? "" : ",") + d;
  // Without --max-version the library's default ceiling (0.5.0) applies.
  options.max_version = flags.GetOr("--max-version", "");
  if (!options.max_version.empty() && !CheckVersion(options.max_version, KnownVersions(), io)) return false;
  options.vendor = flags.GetOr("--vendor", "");
  options.cdi_class = flags.GetOr("--class", "");
  options.metadata_dir = flags.GetOr("--metadata-dir", "");
  return true;
}

void Strings(JsonWriter& w, const rapidjson::Value& v) {
  w.StartArray();
  for (const auto& s : v.GetArray()) JStr(w, s.GetString());
  w.EndArray();
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
  CdiOptions options;
  if (!BuildOptionsFromFlags(*flags, io, options)) return kExitBadInput;

  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
  auto built = CdiSpecs::Generate(loaded->snapshot, node, options);
  if (!built.ok()) {
    io.err << "error: " << built.error().message << "\n";
    return kExitBadInput;
  }
  auto summary_json = built->Json();
  if (!summary_json.ok()) {
    io.err << "error: " << summary_json.error().message << "\n";
    return kExitError;
  }
  const rapidjson::Document summary = ParseJson(*summary_json);
  const rapidjson::Value& claims = summary["specs"];
  const rapidjson::Value& failed = summary["failed"];
  for (const auto& f : failed.GetArray()) io.err << "error: " << f["message"].GetString() << "\n";

  rapidjson::Document report = ParseJson(R"({"written":[],"unchanged":[],"removed":[],"failed":[]})");
  if (!dry_run) {
    auto synced = built->Sync(out_dir);
    if (!synced.ok()) {
      io.err << "error: " << synced.error().message << "\n";
      return kExitError;
    }
    report = ParseJson(*synced);
    for (const auto& f : report["failed"].GetArray()) io.err << "error: " << f["message"].GetString() << "\n";
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
    for (rapidjson::SizeType i = 0; i < claims.Size(); ++i) {
      const rapidjson::Value& c = claims[i];
      const std::string claim = c["claim"].GetString();  // "namespace/name"
      const size_t slash = claim.find('/');
      auto document = built->Document(i);
      if (!document.ok()) {
        io.err << "error: " << document.error().message << "\n";
        return kExitError;
      }
      const rapidjson::Document spec = ParseJson(*document);
      w.StartObject();
      w.Key("namespace");
      JStr(w, claim.substr(0, slash));
      w.Key("name");
      JStr(w, claim.substr(slash + 1));
      w.Key("uid");
      JStr(w, c["claimUID"].GetString());
      w.Key("driver");
      JStr(w, c["driver"].GetString());
      w.Key("file");
      JStr(w, c["fileName"].GetString());
      w.Key("cdiVersion");
      JStr(w, spec["cdiVersion"].GetString());
      w.Key("requests");
      w.StartArray();
      for (const auto& r : c["requests"].GetArray()) {
        w.StartObject();
        w.Key("request");
        JStr(w, r["request"].GetString());
        w.Key("cdiDeviceIDs");
        Strings(w, r["cdiDeviceIDs"]);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.Key("failed");
    w.StartArray();
    for (const auto& f : failed.GetArray()) JStr(w, f["message"].GetString());
    for (const auto& f : report["failed"].GetArray()) JStr(w, f["message"].GetString());
    w.EndArray();
    for (const char* key : {"written", "unchanged", "removed"}) {
      w.Key(key);
      Strings(w, report[key]);
    }
    w.EndObject();
    io.out << buf.GetString() << "\n";
  } else if (dry_run) {
    for (rapidjson::SizeType i = 0; i < claims.Size(); ++i) {
      auto document = built->Document(i);
      if (!document.ok()) {
        io.err << "error: " << document.error().message << "\n";
        return kExitError;
      }
      io.out << "# " << claims[i]["fileName"].GetString() << "\n" << *document;
    }
  } else {
    for (const auto& c : claims.GetArray()) {
      for (const auto& r : c["requests"].GetArray()) {
        io.out << c["claim"].GetString() << " " << r["request"].GetString() << ":";
        for (const auto& id : r["cdiDeviceIDs"].GetArray()) io.out << " " << id.GetString();
        io.out << "\n";
      }
    }
    io.out << report["written"].Size() << " written, " << report["unchanged"].Size() << " unchanged, "
           << report["removed"].Size() << " removed, " << (failed.Size() + report["failed"].Size()) << " failed\n";
  }
  return failed.Empty() && report["failed"].Empty() ? kExitOk : kExitError;
}

// One file's verdict: the path as given (or DIR/name) and its problems ([{"path","message"}]).
struct FileReport {
  std::string file;
  rapidjson::Document problems;
};

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
  const std::vector<std::string> known = KnownVersions();
  CdiOptions options;
  options.compat = !flags->Has("--strict");
  // Strict: the library's default ceiling; compatible: the newest version there is.
  options.max_version = flags->GetOr("--max-version", options.compat && !known.empty() ? known.back() : "");
  if (!options.max_version.empty() && !CheckVersion(options.max_version, known, io)) return kExitBadInput;

  std::vector<FileReport> reports;
  bool unreadable = false;
  for (const std::string& arg : flags->positional()) {
    struct stat st;
    if (stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      auto dir = CdiValidateDirectory(arg, options);
      if (!dir.ok()) {
        io.err << "error: " << dir.error().message << "\n";
        unreadable = true;
        continue;
      }
      rapidjson::Document files = ParseJson(*dir);
      for (auto& f : files.GetArray()) {
        FileReport r{arg + (arg.empty() || arg.back() != '/' ? "/" : "") + f["file"].GetString(), {}};
        r.problems.CopyFrom(f["problems"], r.problems.GetAllocator());
        reports.push_back(std::move(r));
      }
      continue;
    }
    Result<CdiValidation> verdict = Error{};
    if (arg == "-") {
      const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      verdict = CdiValidate(text, Format::kJson, options);
    } else {
      verdict = CdiValidateFile(arg, options);
    }
    if (!verdict.ok()) {
      io.err << "error: " << verdict.error().message << "\n";
      unreadable = true;
      continue;
    }
    reports.push_back({arg, ParseJson(verdict->problems_json)});
  }
  size_t invalid = 0;
  for (const FileReport& f : reports) invalid += f.problems.Empty() ? 0 : 1;
  if (*format == "json") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.SetIndent(' ', 2);
    w.StartArray();
    for (const FileReport& f : reports) {
      w.StartObject();
      w.Key("file");
      JStr(w, f.file);
      w.Key("valid");
      w.Bool(f.problems.Empty());
      w.Key("problems");
      w.StartArray();
      for (const auto& p : f.problems.GetArray()) {
        w.StartObject();
        w.Key("path");
        JStr(w, p["path"].GetString());
        w.Key("message");
        JStr(w, p["message"].GetString());
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    io.out << buf.GetString() << "\n";
  } else {
    for (const FileReport& f : reports) {
      if (f.problems.Empty()) {
        io.out << f.file << ": valid\n";
        continue;
      }
      for (const auto& p : f.problems.GetArray()) {
        io.out << f.file << ": " << p["path"].GetString() << ": " << p["message"].GetString() << "\n";
      }
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
  CdiOptions options;
  if (!BuildOptionsFromFlags(*flags, io, options)) return kExitBadInput;
  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
  auto audited = CdiAudit(loaded->snapshot, node, dir, options);
  if (!audited.ok()) {
    io.err << "error: " << audited.error().message << "\n";
    return audited.error().code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
  }
  const rapidjson::Document report = ParseJson(*audited);
  const rapidjson::Value& findings = report["findings"];
  if (*format == "json") {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.SetIndent(' ', 2);
    report.Accept(w);
    io.out << buf.GetString() << "\n";
  } else {
    const std::string prefix = dir + (dir.empty() || dir.back() != '/' ? "/" : "");
    for (const auto& f : findings.GetArray()) {
      const std::string file = f["file"].GetString();
      io.out << (file.empty() ? std::string("(no file)") : prefix + file) << ": " << f["status"].GetString() << ": "
             << f["message"].GetString() << "\n";
    }
    auto count = [&](std::string_view status) {
      size_t n = 0;
      for (const auto& f : findings.GetArray()) n += status == f["status"].GetString() ? 1 : 0;
      return n;
    };
    io.out << report["inSync"].Size() << " in sync, " << count("stale") << " stale, " << count("missing")
           << " missing, " << count("out of date") << " out of date, " << count("failed") << " failed\n";
  }
  return findings.Empty() ? kExitOk : kExitDrift;
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
