#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "commands.h"
#include "output.h"
#include "report.h"

namespace draforge::cli {

int RunGet(const Args& args, Io io) {
  auto specs = InputFlags();
  specs.push_back({{"-o", "--output"}, true, "table (default), json or yaml"});
  specs.push_back({{"-n", "--namespace"}, true, "only objects of this namespace (default: every namespace)"});
  const std::string usage =
      "draforge get KIND [NAME] (-f FILE... | --kubeconfig FILE [--context NAME]) [-n NAMESPACE] [-o table|json|yaml]\n"
      "  KIND: deviceclasses, resourceclaims, resourceclaimtemplates, resourceslices, devicetaintrules,\n"
      "        resourcepoolstatusrequests, pods, nodes; or the derived views pools and devices (table only)";
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
  if (format != "table" && !target->kind.has_value()) {
    io.err << "error: " << target->view << " is a derived view: only -o table is available\n";
    return kExitBadInput;
  }
  store::Cluster cluster;
  auto inputs = LoadIntoCluster(*flags, io, cluster);
  if (!inputs) return kExitBadInput;
  auto snap = cluster.snapshot();
  TableFilter filter{flags->GetOr("-n", ""), pos.size() > 1 ? pos[1] : ""};
  if (format == "table") {
    Table t = MakeTable(*snap, *target, filter);
    if (t.empty()) {
      io.err << "No resources found.\n";
      return filter.name.empty() ? kExitOk : kExitBadInput;
    }
    t.Print(io.out);
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs;
  for (const api::Object* o : snap->List(*target->kind, filter.ns)) {
    if (!filter.name.empty() && o->metadata().name.value_or("") != filter.name) continue;
    auto doc = api::EncodeObject(*o);
    if (!doc.ok()) {
      io.err << "error: " << doc.status().message() << "\n";
      return kExitError;
    }
    docs.push_back(*std::move(doc));
  }
  if (docs.empty()) {
    io.err << "No resources found.\n";
    return filter.name.empty() ? kExitOk : kExitBadInput;
  }
  // `get KIND NAME` prints the object alone; `get KIND` always a List, as kubectl does.
  (void)WriteDocuments(docs, format, io.out, /*always_list=*/filter.name.empty());
  return kExitOk;
}

}  // namespace draforge::cli
