#include "commands.h"
#include "json_fields.h"
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
  if (format != "table" && target->kind.empty()) {
    io.err << "error: " << target->view << " is a derived view: only -o table is available\n";
    return kExitBadInput;
  }
  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
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
