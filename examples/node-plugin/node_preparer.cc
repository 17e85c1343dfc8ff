#include "node_preparer.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "node_sync.h"
#include "rapidjson/document.h"

// examples/scenarios/demo.yaml, embedded by examples/cli/embed.py (meson.build).
extern const char kDemoScenario[];

namespace draforge::node_plugin {
namespace {

std::string What(const ClaimRef& ref) {
  return "ResourceClaim " + ref.namespace_ + "/" + ref.name + " (uid " + ref.uid + ")";
}

std::string StringOr(const rapidjson::Value& o, const char* key) {
  if (!o.IsObject()) return "";
  auto it = o.FindMember(key);
  return it != o.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                     : std::string();
}

std::vector<std::string> StringsOf(const rapidjson::Value& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsArray()) return out;
  for (const rapidjson::Value& v : it->value.GetArray()) {
    if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
  }
  return out;
}

// The checkpoint entry of a claim from draforge_cdi_claim_spec_json's answer.
CheckpointEntry EntryOf(const ClaimRef& ref, const std::string& driver, const rapidjson::Document& spec) {
  CheckpointEntry e;
  e.claim = ref;
  e.driver = driver;
  e.file_name = StringOr(spec, "fileName");
  e.document = StringOr(spec, "document");
  auto devices = spec.FindMember("devices");
  if (devices != spec.MemberEnd() && devices->value.IsArray()) {
    for (const rapidjson::Value& d : devices->value.GetArray()) {
      e.devices.push_back({StringsOf(d, "requests"), StringOr(d, "pool"), StringOr(d, "device"),
                           StringsOf(d, "cdiDeviceIDs")});
    }
  }
  return e;
}

CdiOptions DriverOptions(const std::string& driver) {
  CdiOptions o;
  o.drivers = driver;
  return o;
}

}  // namespace

NodePreparer::NodePreparer(NodePreparerOptions options) : options_(std::move(options)) {}

NodePreparer::~NodePreparer() { Stop(); }

Result<std::unique_ptr<NodePreparer>> NodePreparer::Create(NodePreparerOptions options) {
  auto invalid = [](std::string m) { return Error{DRAFORGE_EINVALID, "node plugin: " + std::move(m)}; };
  if (options.driver.empty()) return invalid("the driver name must not be empty");
  if (options.node.empty()) return invalid("the node name must not be empty");
  if (options.cdi_dir.empty() || options.state_dir.empty()) {
    return invalid("the CDI and state directories must not be empty");
  }
  if (options.node_mode && options.client == nullptr) {
    return invalid("node mode needs a cluster (a kubeconfig or in-cluster configuration)");
  }
  if (options.resync.count() <= 0) return invalid("the resync period must be positive");
  std::unique_ptr<NodePreparer> p(new NodePreparer(std::move(options)));
  if (p->options_.client == nullptr) {
    auto cluster = Cluster::Create();
    if (!cluster.ok()) return cluster.error();
    const std::string& file = p->options_.scenario_file;
    Result<size_t> applied = file.empty() ? cluster->Apply(kDemoScenario) : cluster->ApplyFile(file);
    if (!applied.ok()) {
      Error e = applied.error();
      e.message = (file.empty() ? std::string("the embedded demo scenario: ") : "scenario " + file + ": ") + e.message;
      return e;
    }
    auto snapshot = cluster->snapshot();
    if (!snapshot.ok()) return snapshot.error();
    p->scenario_ = std::move(*snapshot);
  }
  return p;
}

Result<void> NodePreparer::Start() {
  std::error_code ec;
  std::filesystem::create_directories(options_.state_dir, ec);
  if (ec) {
    return Error{DRAFORGE_EIO, "node plugin: cannot create the state directory " + options_.state_dir + ": " +
                                   ec.message()};
  }
  auto cp = Checkpoint::Load(options_.state_dir + "/checkpoint.json");
  if (!cp.ok()) return cp.error();
  if (!options_.node_mode) {
    if (Result<void> r = WriteStaticDocument(); !r.ok()) return r;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    checkpoint_ = std::move(*cp);
    // A reboot wipes /var/run/cdi: the claims kubelet still counts as prepared need their files.
    // After the static document, so that its success cannot hide a failure here.
    for (const auto& [uid, e] : checkpoint_->entries()) {
      if (std::filesystem::exists(options_.cdi_dir + "/" + e.file_name, ec)) continue;
      (void)WriteSpecLocked(e.file_name, e.document);  // a failure turned "cdi" false; Prepare retries
    }
  }
  if (options_.node_mode) {
    NodeSyncOptions so;
    so.driver = options_.driver;
    so.node = options_.node;
    so.cdi_dir = options_.cdi_dir;
    so.client = options_.client;
    so.status = options_.status;
    so.resync = options_.resync;
    so.dir_mutex = &mu_;
    auto sync = NodeSync::Start(std::move(so));
    if (!sync.ok()) return sync.error();
    sync_ = std::move(*sync);
  }
  return {};
}

void NodePreparer::Stop() {
  if (sync_) sync_->Stop();
}

Result<void> NodePreparer::WriteStaticDocument() {
  std::optional<Snapshot> snapshot = scenario_;
  if (!snapshot) {
    // Only this node's slices of the driver: what the static document lists.
    KubeRequestOptions ro;
    ro.field_selector = "spec.nodeName=" + options_.node + ",spec.driver=" + options_.driver;
    auto slices = options_.client->List("resource.k8s.io/v1", "resourceslices", {}, ro);
    if (!slices.ok()) {
      SetCondition("api", false, "listing ResourceSlices: " + slices.error().message);
      return Error{slices.error().code, "node plugin: listing the ResourceSlices of node " + options_.node + ": " +
                                            slices.error().message};
    }
    SetCondition("api", true);
    auto cluster = Cluster::Create();
    if (!cluster.ok()) return cluster.error();
    if (auto applied = cluster->Apply(*slices); !applied.ok()) return applied.error();
    auto s = cluster->snapshot();
    if (!s.ok()) return s.error();
    snapshot = std::move(*s);
  }
  auto spec = CdiNodeSpecJson(*snapshot, options_.node, options_.driver);
  // A cluster may not have published the node's slices yet: then there is nothing to describe. A
  // scenario is what it is: a node without devices of the driver there is a mistake in the flags.
  if (!spec.ok() && spec.error().code == DRAFORGE_ENOTFOUND && !scenario_) return {};
  if (!spec.ok()) return spec.error();
  rapidjson::Document d;
  d.Parse(spec->c_str(), spec->size());
  std::lock_guard<std::mutex> lock(mu_);
  return WriteSpecLocked(StringOr(d, "fileName"), StringOr(d, "document"));
}

Result<void> NodePreparer::WriteSpecLocked(const std::string& file_name, const std::string& document) {
  const auto start = std::chrono::steady_clock::now();
  Result<bool> written = CdiSpecFileWrite(options_.cdi_dir, file_name, document, DriverOptions(options_.driver));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!written.ok()) {
    if (options_.status != nullptr) options_.status->ObserveWrite(seconds, false);
    SetCondition("cdi", false, written.error().message);
    return written.error();
  }
  if (*written && options_.status != nullptr) options_.status->ObserveWrite(seconds, true);
  SetCondition("cdi", true);
  return {};
}

void NodePreparer::SetCondition(const char* name, bool ok, const std::string& reason) {
  if (options_.status != nullptr) options_.status->SetCondition(name, ok, reason);
}

Result<std::string> NodePreparer::ReadClaim(const ClaimRef& ref) {
  if (scenario_) {
    auto json = scenario_->GetJson("ResourceClaim", ref.namespace_, ref.name);
    if (!json.ok() && json.error().code == DRAFORGE_ENOTFOUND) return std::string();
    return json;
  }
  auto json = options_.client->Get("resource.k8s.io/v1", "resourceclaims", ref.namespace_, ref.name);
  if (!json.ok() && IsKubeNotFound(json.error())) {
    SetCondition("api", true);
    return std::string();
  }
  if (!json.ok()) {
    SetCondition("api", false, "reading " + What(ref) + ": " + json.error().message);
    return json;
  }
  SetCondition("api", true);
  return json;
}

std::map<std::string, PrepareResult> NodePreparer::Prepare(const std::vector<ClaimRef>& claims) {
  std::map<std::string, PrepareResult> out;
  for (const ClaimRef& ref : claims) {
    PrepareResult r = PrepareOne(ref);
    out[ref.uid] = std::move(r);
  }
  return out;
}

PrepareResult NodePreparer::PrepareOne(const ClaimRef& ref) {
  PrepareResult out;
  auto fail = [&](const std::string& message) {
    out.devices.clear();
    out.error = message;
    return out;
  };
  const std::string what = What(ref);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!checkpoint_) return fail(what + ": the node plugin has not started");
    if (const CheckpointEntry* e = checkpoint_->Find(ref.uid)) {
      if (e->claim.namespace_ != ref.namespace_ || e->claim.name != ref.name) {
        return fail(what + ": this UID was prepared as ResourceClaim " + e->claim.namespace_ + "/" + e->claim.name);
      }
      // Prepared before (kubelet retries, or restarted): the same devices; the file only if it is gone.
      std::error_code ec;
      if (!std::filesystem::exists(options_.cdi_dir + "/" + e->file_name, ec)) {
        if (Result<void> w = WriteSpecLocked(e->file_name, e->document); !w.ok()) {
          return fail(what + ": rewriting its CDI spec: " + w.error().message);
        }
      }
      out.devices = e->devices;
      return out;
    }
  }

  Result<std::string> json = ReadClaim(ref);
  if (!json.ok()) return fail(what + ": reading it: " + json.error().message);
  if (json->empty()) {
    return fail(what + ": not found" +
                (scenario_ ? " in " + (options_.scenario_file.empty() ? std::string("the embedded demo scenario")
                                                                       : "scenario " + options_.scenario_file)
                           : std::string(" in the API server")));
  }
  rapidjson::Document claim;
  claim.Parse(json->c_str(), json->size());
  const std::string uid = claim.HasParseError() ? "" : StringOr(claim["metadata"], "uid");
  if (uid != ref.uid) {
    return fail(what + ": the claim of that name has UID " + (uid.empty() ? std::string("(none)") : uid) +
                " (deleted and created again?)");
  }
  auto spec = CdiClaimSpecJson(*json, options_.node, options_.driver, DriverOptions(options_.driver));
  if (!spec.ok()) return fail(spec.error().message);  // names the claim with its UID
  rapidjson::Document sd;
  sd.Parse(spec->c_str(), spec->size());
  CheckpointEntry entry = EntryOf(ref, options_.driver, sd);

  std::lock_guard<std::mutex> lock(mu_);
  if (const CheckpointEntry* e = checkpoint_->Find(ref.uid)) {  // another thread prepared it meanwhile
    out.devices = e->devices;
    return out;
  }
  if (Result<void> w = WriteSpecLocked(entry.file_name, entry.document); !w.ok()) {
    return fail(what + ": writing its CDI spec: " + w.error().message);
  }
  if (Result<void> c = checkpoint_->Put(entry); !c.ok()) {
    // Unrecorded, the file would outlive an unprepare: take it back (kubelet retries the prepare).
    (void)CdiSpecFileRemove(options_.cdi_dir, entry.file_name);
    return fail(what + ": " + c.error().message);
  }
  out.devices = std::move(entry.devices);
  return out;
}

std::map<std::string, std::string> NodePreparer::Unprepare(const std::vector<ClaimRef>& claims) {
  std::map<std::string, std::string> out;
  for (const ClaimRef& ref : claims) {
    std::string error = UnprepareOne(ref);
    out[ref.uid] = std::move(error);
  }
  return out;
}

std::string NodePreparer::UnprepareOne(const ClaimRef& ref) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string what = What(ref);
  if (!checkpoint_) return what + ": the node plugin has not started";
  const CheckpointEntry* e = checkpoint_->Find(ref.uid);
  // Not prepared here (or unprepared already, or the claim is long gone): nothing to undo.
  if (e == nullptr) return "";
  const auto start = std::chrono::steady_clock::now();
  Result<void> removed = CdiSpecFileRemove(options_.cdi_dir, e->file_name);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options_.status != nullptr) options_.status->ObserveWrite(seconds, removed.ok());
  if (!removed.ok()) {
    SetCondition("cdi", false, removed.error().message);
    return what + ": removing its CDI spec: " + removed.error().message;
  }
  SetCondition("cdi", true);
  if (Result<void> c = checkpoint_->Remove(ref.uid); !c.ok()) return what + ": " + c.error().message;
  return "";
}

}  // namespace draforge::node_plugin
