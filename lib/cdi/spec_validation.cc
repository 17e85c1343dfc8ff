#include "cdi/spec_validation.h"

#include <cctype>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/qualified_name.h"
#include "cdi/internal/names.h"
#include "common/status.h"

namespace draforge::cdi {
namespace {

constexpr size_t kMaxAnnotationsBytes = size_t{256} << 10;  // apimachinery's TotalAnnotationSizeLimitB
constexpr size_t kMaxClosIdBytes = 4096;
constexpr size_t kMaxInterfaceNameBytes = 15;  // IFNAMSIZ - 1

std::string Q(std::string_view s) { return absl::StrCat("\"", AV(s), "\""); }

std::string Idx(const std::string& path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

bool IsAbsolute(std::string_view path) { return !path.empty() && path.front() == '/'; }

class Validator {
 public:
  Validator(const ValidateOptions& options, std::vector<Problem>* problems)
      : strict_(options.strictness == Strictness::kStrict), max_version_(options.max_version), problems_(problems) {}

  void Add(std::string path, std::string message) { problems_->push_back({std::move(path), std::move(message)}); }

  void Run(const Spec& spec) {
    Version(spec);
    Kind(spec.kind);
    Annotations(spec.annotations, "$.annotations");
    Edits(spec.container_edits, "$.containerEdits", spec.version);
    if (spec.devices.empty()) Add("$.devices", "must list at least one device");
    std::map<std::string_view, size_t> names;
    for (size_t i = 0; i < spec.devices.size(); ++i) {
      const Device& d = spec.devices[i];
      const std::string path = Idx("$.devices", i);
      if (std::string e = internal::DeviceNameError(d.name, strict_); !e.empty()) {
        Add(path + ".name", e);
      } else if (auto [it, fresh] = names.emplace(d.name, i); !fresh) {
        Add(path + ".name", absl::StrCat("duplicate device name ", Q(d.name), " (also at $.devices[", it->second, "])"));
      }
      Annotations(d.annotations, path + ".annotations");
      if (d.container_edits.empty()) {
        Add(path + ".containerEdits", "must not be empty (runtimes refuse a device without edits)");
      }
      Edits(d.container_edits, path + ".containerEdits", spec.version);
    }
  }

 private:
  void Version(const Spec& spec) {
    const std::string path = "$.cdiVersion";
    if (!IsKnownVersion(max_version_)) {
      Add(path, absl::StrCat("the maximum version ", Q(max_version_), " is not a known CDI version (known: ",
                             absl::StrJoin(KnownVersions(), ", "), ")"));
      return;
    }
    const MinimumVersionResult min = MinimumVersionWithReason(spec);
    if (CompareVersions(min.version, max_version_).value_or(0) > 0) {
      Add("$." + min.reason.substr(0, min.reason.find(' ')),
          absl::StrCat("this field requires cdiVersion ", min.version, ", above the maximum ", max_version_,
                       " that the target runtimes accept"));
    }
    if (spec.version.empty()) {
      Add(path, "must not be empty");
      return;
    }
    if (strict_ && spec.version.front() == 'v' && IsKnownVersion(spec.version, /*allow_v_prefix=*/true)) {
      Add(path, absl::StrCat("version ", Q(spec.version), " must not start with 'v' (write ", spec.version.substr(1),
                             ")"));
      return;
    }
    if (!IsKnownVersion(spec.version, /*allow_v_prefix=*/!strict_)) {
      Add(path, absl::StrCat("unknown version ", Q(spec.version), " (known: ", absl::StrJoin(KnownVersions(), ", "),
                             ")"));
      return;
    }
    if (CompareVersions(spec.version, min.version).value_or(0) < 0) {
      Add(path, absl::StrCat("the spec version must be at least ", min.version,
                             min.reason.empty() ? std::string(" (the earliest supported version)")
                                                : absl::StrCat(" (required by ", min.reason, ")")));
      return;
    }
    if (CompareVersions(spec.version, max_version_).value_or(0) > 0) {
      Add(path, absl::StrCat("version ", Q(spec.version), " is above the maximum ", max_version_,
                             " that the target runtimes accept (they reject versions they do not know)"));
      return;
    }
    if (strict_ && spec.version != min.version) {
      Add(path, absl::StrCat("must be ", min.version,
                             ", the minimum version for the fields used, so that the oldest runtimes can read it"));
    }
  }

  void Kind(const std::string& kind) {
    const std::string path = "$.kind";
    if (kind.empty()) {
      Add(path, "must not be empty");
      return;
    }
    const cdi::Kind k = SplitKind(kind);
    if (k.vendor.empty() && kind.find('/') == std::string::npos) {
      Add(path, absl::StrCat("kind ", Q(kind), " must have the form \"vendor/class\""));
      return;
    }
    std::string e = strict_ ? internal::StrictVendorError(k.vendor) : internal::CompatKindPartError("vendor", k.vendor);
    if (!e.empty()) Add(path, e);
    e = strict_ ? internal::StrictClassError(k.cdi_class) : internal::CompatKindPartError("class", k.cdi_class);
    if (!e.empty()) Add(path, e);
  }

  void Annotations(const std::map<std::string, std::string>& annotations, const std::string& path) {
    // The reference loader's annotation check never runs on typed specs; runtimes accept any key, so
    // only the writer's level applies Kubernetes' rules (keys are checked lowercased, as upstream).
    if (!strict_) return;
    size_t total = 0;
    for (const auto& [key, value] : annotations) {
      total += key.size() + value.size();
      std::vector<std::string> errs = api::IsQualifiedName(absl::AsciiStrToLower(AV(key)));
      if (!errs.empty()) {
        Add(absl::StrCat(path, "[", Q(key), "]"),
            absl::StrCat("key ", Q(key), " is not a qualified name: ", absl::StrJoin(errs, "; ")));
      }
    }
    if (total > kMaxAnnotationsBytes) {
      Add(path, absl::StrCat("annotations total ", total, " bytes, above the limit of ", kMaxAnnotationsBytes));
    }
  }

  void Env(const std::vector<std::string>& env, const std::string& path) {
    for (size_t i = 0; i < env.size(); ++i) {
      const size_t eq = env[i].find('=');
      if (eq == std::string::npos || eq == 0) {
        Add(Idx(path, i), absl::StrCat("invalid environment variable ", Q(env[i]), " (want NAME=VALUE)"));
      }
    }
  }

  void Edits(const ContainerEdits& e, const std::string& path, const std::string& version) {
    Env(e.env, path + ".env");
    for (size_t i = 0; i < e.device_nodes.size(); ++i) DeviceNode(e.device_nodes[i], Idx(path + ".deviceNodes", i));
    for (size_t i = 0; i < e.hooks.size(); ++i) Hook(e.hooks[i], Idx(path + ".hooks", i));
    for (size_t i = 0; i < e.mounts.size(); ++i) Mount(e.mounts[i], Idx(path + ".mounts", i));
    if (e.intel_rdt) IntelRdt(*e.intel_rdt, path + ".intelRdt", version);
    NetDevices(e.net_devices, path + ".netDevices");
  }

  void DeviceNode(const cdi::DeviceNode& n, const std::string& path) {
    if (n.path.empty()) {
      Add(path + ".path", "must not be empty");
    } else if (strict_ && !IsAbsolute(n.path)) {
      Add(path + ".path", absl::StrCat("must be an absolute path, got ", Q(n.path)));
    }
    if (strict_ && !n.host_path.empty() && !IsAbsolute(n.host_path)) {
      Add(path + ".hostPath", absl::StrCat("must be an absolute path, got ", Q(n.host_path)));
    }
    if (n.type != "" && n.type != "b" && n.type != "c" && n.type != "u" && n.type != "p") {
      Add(path + ".type", absl::StrCat("invalid device type ", Q(n.type), " (want \"b\", \"c\", \"u\" or \"p\")"));
    }
    for (char c : n.permissions) {
      if (c != 'r' && c != 'w' && c != 'm') {
        Add(path + ".permissions",
            absl::StrCat("invalid permissions ", Q(n.permissions), " (want letters of \"rwm\")"));
        break;
      }
    }
    if (strict_ && (n.major.value_or(0) < 0 || n.minor.value_or(0) < 0)) {
      Add(path, "major and minor must not be negative");
    }
  }

  void Mount(const cdi::Mount& m, const std::string& path) {
    if (m.host_path.empty()) Add(path + ".hostPath", "must not be empty");
    if (m.container_path.empty()) {
      Add(path + ".containerPath", "must not be empty");
    } else if (strict_ && !IsAbsolute(m.container_path)) {
      Add(path + ".containerPath", absl::StrCat("must be an absolute path, got ", Q(m.container_path)));
    }
    // A typed non-bind mount (tmpfs, proc, ...) names a source, not a host path.
    const bool bind = m.type.empty() || m.type == "bind" || m.type == "rbind";
    if (strict_ && bind && !m.host_path.empty() && !IsAbsolute(m.host_path)) {
      Add(path + ".hostPath", absl::StrCat("must be an absolute path, got ", Q(m.host_path)));
    }
  }

  void Hook(const cdi::Hook& h, const std::string& path) {
    static constexpr std::string_view kNames[] = {"prestart",       "createRuntime", "createContainer",
                                                  "startContainer", "poststart",     "poststop"};
    bool known = false;
    for (std::string_view n : kNames) known = known || h.hook_name == n;
    if (!known) {
      Add(path + ".hookName", absl::StrCat("invalid hook name ", Q(h.hook_name),
                                           " (want prestart, createRuntime, createContainer, startContainer, "
                                           "poststart or poststop)"));
    }
    if (h.path.empty()) {
      Add(path + ".path", "must not be empty");
    } else if (strict_ && !IsAbsolute(h.path)) {
      Add(path + ".path", absl::StrCat("must be an absolute path, got ", Q(h.path)));
    }
    Env(h.env, path + ".env");
    if (strict_ && h.timeout && *h.timeout <= 0) {
      Add(path + ".timeout", absl::StrCat("must be positive, got ", *h.timeout));
    }
  }

  void IntelRdt(const cdi::IntelRdt& r, const std::string& path, const std::string& version) {
    const std::string& id = r.clos_id;
    if (id.size() >= kMaxClosIdBytes || id == "." || id == ".." ||
        (id != "/" && id.find_first_of("/\n") != std::string::npos)) {
      Add(path + ".closID", absl::StrCat("invalid closID ", Q(id), " (want a file name, or \"/\")"));
    }
    // Removed in 1.1.0: a reader of that version rejects them as unknown fields.
    if (CompareVersions(version, "1.1.0").value_or(-1) >= 0) {
      if (r.enable_cmt) Add(path + ".enableCMT", "unknown field \"enableCMT\" (removed in cdiVersion 1.1.0)");
      if (r.enable_mbm) Add(path + ".enableMBM", "unknown field \"enableMBM\" (removed in cdiVersion 1.1.0)");
    }
  }

  void NetDevices(const std::vector<NetDevice>& devices, const std::string& path) {
    std::set<std::string_view> hosts, names;
    for (size_t i = 0; i < devices.size(); ++i) {
      const NetDevice& n = devices[i];
      const std::string p = Idx(path, i);
      if (n.host_interface_name.empty()) {
        Add(p + ".hostInterfaceName", "must not be empty");
      } else if (!hosts.insert(n.host_interface_name).second) {
        Add(p + ".hostInterfaceName", absl::StrCat("duplicate host interface ", Q(n.host_interface_name)));
      }
      if (n.name.empty()) {
        Add(p + ".name", "must not be empty");
      } else if (!names.insert(n.name).second) {
        Add(p + ".name", absl::StrCat("duplicate interface name ", Q(n.name)));
      }
      if (strict_) {
        InterfaceName(n.host_interface_name, p + ".hostInterfaceName");
        InterfaceName(n.name, p + ".name");
      }
    }
  }

  void InterfaceName(const std::string& name, const std::string& path) {
    if (name.empty()) return;
    bool bad = name.size() > kMaxInterfaceNameBytes || name == "." || name == "..";
    for (char c : name) bad = bad || c == '/' || c == ':' || std::isspace(static_cast<unsigned char>(c));
    if (bad) {
      Add(path, absl::StrCat("invalid network interface name ", Q(name),
                             " (at most 15 bytes, no '/', ':' or white space, not \".\" or \"..\")"));
    }
  }

  const bool strict_;
  const std::string& max_version_;
  std::vector<Problem>* problems_;
};

}  // namespace

std::vector<Problem> Validate(const Spec& spec, const ValidateOptions& options) {
  std::vector<Problem> problems;
  Validator(options, &problems).Run(spec);
  return problems;
}

std::vector<Problem> ValidateDocument(std::string_view text, Format format, const ValidateOptions& options) {
  DecodeOptions decode;
  decode.format = format;
  decode.strict = options.strictness == Strictness::kStrict;
  Spec spec;
  std::vector<Problem> problems = DecodeSpec(text, decode, &spec);
  // A document that is not an object at all (or not JSON) has nothing more to validate.
  for (const Problem& p : problems) {
    if (p.path == "$" && p.message.rfind("missing required field", 0) != 0) return problems;
  }
  std::vector<Problem> more = Validate(spec, options);
  // What the decoder reported (a field of the wrong type, a missing field) is not reported again
  // as the empty value it decoded to.
  std::set<std::string> reported;
  for (const Problem& q : problems) {
    reported.insert(q.path);
    constexpr std::string_view kMissing = "missing required field \"";
    if (q.path == "$" && q.message.rfind(kMissing, 0) == 0) {
      reported.insert("$." + q.message.substr(kMissing.size(), q.message.size() - kMissing.size() - 1));
    }
  }
  for (Problem& p : more) {
    if (reported.count(p.path) == 0) problems.push_back(std::move(p));
  }
  return problems;
}

absl::Status ValidationStatus(const Spec& spec, std::string_view what, const ValidateOptions& options) {
  std::vector<Problem> problems = Validate(spec, options);
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("CDI spec ", AV(what), ": ", FormatProblems(problems)));
}

}  // namespace draforge::cdi
