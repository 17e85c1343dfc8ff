#include <cstdlib>
#include <string>
#include <vector>

#include "commands.h"
#include "json_fields.h"
#include "output.h"
#include "report.h"

namespace draforge::cli {
namespace {

// `get pools --availability`: the ResourcePoolStatusRequestStatus kube-controller-manager would write
// for --driver/--pool/--limit/--partition-attribute, as a table or as the status document.
int GetPoolAvailability(const Flags& flags, const draforge::Snapshot& snapshot, const std::string& format, Io io) {
  inventory::PoolStatusQuery q;
  q.driver = flags.GetOr("--driver", "");
  q.pool_name = flags.GetOr("--pool", "");
  q.default_partition_type_attribute = flags.GetOr("--partition-attribute", "");
  if (q.driver.empty()) {
    io.err << "error: --availability needs --driver (a ResourcePoolStatusRequest names one driver)\n";
    return kExitBadInput;
  }
  if (auto limit = flags.Get("--limit")) {
    char* end = nullptr;
    q.limit = std::strtoll(limit->c_str(), &end, 10);
    if (limit->empty() || *end != '\0' || q.limit < 1) {
      io.err << "error: --limit: \"" << *limit << "\" is not a number from 1 to 1000\n";
      return kExitBadInput;
    }
  }
  auto json = inventory::PoolStatusJson(snapshot, q);
  if (!json.ok()) {
    io.err << "error: " << json.error().message << "\n";
    return json.error().code == DRAFORGE_EINVALID ? kExitBadInput : kExitError;
  }
  auto doc = ParseAbiJson(*json, "pool status");
  if (!doc.ok()) {
    io.err << "error: " << doc.error().message << "\n";
    return kExitError;
  }
  if (format == "table") {
    const Table t = PoolAvailabilityTable(*doc);
    if (t.empty()) {
      io.err << "No pools found.\n";
      return kExitOk;
    }
    t.Print(io.out);
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs;
  docs.push_back(std::move(*doc));
  if (auto printed = PrintDocuments(docs, format, io.out); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitError;
  }
  return kExitOk;
}

}  // namespace

int RunGet(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"-o", "--output"}, true, "table (default), json or yaml"});
  specs.push_back({{"-n", "--namespace"}, true, "only objects of this namespace (default: every namespace)"});
  specs.push_back({{"--availability"}, false,
                   "pools: availability as kube-controller-manager answers a ResourcePoolStatusRequest"});
  specs.push_back({{"--driver"}, true, "pools --availability: the driver (required)"});
  specs.push_back({{"--pool"}, true, "pools --availability: only this pool"});
  specs.push_back({{"--limit"}, true, "pools --availability: at most this many pools (1..1000, default 100)"});
  specs.push_back({{"--partition-attribute"}, true,
                   "pools --availability: the request's defaultPartitionTypeAttribute"});
  const std::string usage =
      "draforge get KIND [NAME] (-f FILE... | --kubeconfig FILE [--context NAME]) [-n NAMESPACE] [-o table|json|yaml]\n"
      "  KIND: deviceclasses, resourceclaims, resourceclaimtemplates, resourceslices, devicetaintrules,\n"
      "        resourcepoolstatusrequests, pods, nodes; or the derived views pools and devices (table only)\n"
      "  pools --availability --driver D [--pool P] [--limit N] [--partition-attribute A]: per pool, the\n"
      "        status kube-controller-manager writes for such a ResourcePoolStatusRequest (KEP-5677)";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, usage, io, code);
  if (!flags) return code;
  const auto& pos = flags->positional();
  if (pos.empty() || pos.size() > 2) {
    io.err << "error: expected KIND and at most one NAME\n\nUsage: " << usage << "\n";
    return kExitBadInput;
  }
  auto target = ParseGetTarget(pos[0]);
  if (!target.has_value()) {
    io.err << "error: unknown kind \"" << pos[0] << "\"\n\nUsage: " << usage << "\n";
    return kExitBadInput;
  }
  const auto format_or = OutputFormat(*flags, "table", {"table", "json", "yaml"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  const bool availability = flags->Has("--availability");
  const bool availability_flags = flags->Has("--driver") || flags->Has("--pool") || flags->Has("--limit") ||
                                  flags->Has("--partition-attribute");
  if ((availability && target->view != "pools") || (!availability && availability_flags)) {
    io.err << "error: --availability, --driver, --pool, --limit and --partition-attribute go with "
              "`get pools --availability` only\n";
    return kExitBadInput;
  }
  if (format != "table" && target->kind.empty() && !availability) {
    io.err << "error: " << target->view << " is a derived view: only -o table is available\n";
    return kExitBadInput;
  }
  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
  if (availability) return GetPoolAvailability(*flags, loaded->snapshot, format, io);
  TableFilter filter{flags->GetOr("-n", ""), pos.size() > 1 ? pos[1] : ""};
  if (format == "table") {
    auto t = MakeTable(loaded->snapshot, *target, filter);
    if (!t.ok()) {
      io.err << "error: " << t.error().message << "\n";
      return kExitError;
    }
    if (t->empty()) {
      io.err << "No resources found.\n";
      return filter.name.empty() ? kExitOk : kExitBadInput;
    }
    t->Print(io.out);
    return kExitOk;
  }
  auto json = loaded->snapshot.ObjectsJson(target->kind);
  rapidjson::Document list;
  if (!json.ok() || list.Parse(json->data(), json->size()).HasParseError() || !list.IsArray()) {
    io.err << "error: " << (json.ok() ? "unreadable objects from the library" : json.error().message) << "\n";
    return kExitError;
  }
  std::vector<rapidjson::Document> docs;
  for (const rapidjson::Value& o : list.GetArray()) {
    const rapidjson::Value& meta = JsonObject(o, "metadata");
    if (!filter.ns.empty() && JsonStr(meta, "namespace") != filter.ns) continue;
    if (!filter.name.empty() && JsonStr(meta, "name") != filter.name) continue;
    rapidjson::Document& doc = docs.emplace_back();
    doc.CopyFrom(o, doc.GetAllocator());
  }
  if (docs.empty()) {
    io.err << "No resources found.\n";
    return filter.name.empty() ? kExitOk : kExitBadInput;
  }
  // `get KIND NAME` prints the object alone; `get KIND` always a List, as kubectl does.
  if (auto printed = PrintDocuments(docs, format, io.out, /*always_list=*/filter.name.empty()); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitError;
  }
  return kExitOk;
}

}  // namespace draforge::cli
