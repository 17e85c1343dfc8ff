// Prints every inventory view (draforge/inventory.h) of each input as one JSON line per view:
// {"input":PATH,"schema":NAME,"body":VIEW}, or {"input":PATH,"error":MESSAGE} when PATH does not
// load. inventory_schema_test.py validates each body against openapi.json's schema NAME, so the
// ABI's JSON and the server's public contract cannot drift apart.
//
// Usage: inventory_views PATH...   (a file, or a directory of .yaml/.yml/.json files)
#include <cstdio>
#include <string>
#include <vector>

#include "draforge/draforge.hpp"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace {

// `s` as a JSON string literal.
std::string Quote(const std::string& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  return buf.GetString();
}

void Print(const std::string& input, const char* schema, const draforge::Result<std::string>& body) {
  if (!body.ok()) {
    std::printf("{\"input\":%s,\"schema\":\"%s\",\"error\":%s}\n", Quote(input).c_str(), schema,
                Quote("view failed: " + body.error().message).c_str());
    return;
  }
  std::printf("{\"input\":%s,\"schema\":\"%s\",\"body\":%s}\n", Quote(input).c_str(), schema, body->c_str());
}

// "namespace/name" of every pending claim, from the claim view.
std::vector<std::string> PendingClaims(const draforge::Snapshot& snapshot) {
  std::vector<std::string> out;
  auto json = draforge::inventory::ClaimsJson(snapshot, "", "pending");
  if (!json.ok()) return out;
  rapidjson::Document doc;
  doc.Parse(json->c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("items")) return out;
  for (const auto& c : doc["items"].GetArray()) {
    out.push_back(std::string(c["namespace"].GetString()) + "/" + c["name"].GetString());
  }
  return out;
}

void Views(const std::string& input) {
  using namespace draforge;
  auto empty = Cluster::Create().value();
  auto cluster = Cluster::Create().value();
  if (auto applied = cluster.ApplyFile(input); !applied.ok()) {
    std::printf("{\"input\":%s,\"error\":%s}\n", Quote(input).c_str(), Quote(applied.error().message).c_str());
    return;
  }
  const Snapshot s = cluster.snapshot().value();
  Print(input, "Summary", inventory::SummaryJson(s));
  Print(input, "PoolList", inventory::PoolsJson(s));
  Print(input, "DeviceList", inventory::DevicesJson(s));
  Print(input, "DeviceList", inventory::DevicesJson(s, {.allocated = true, .offset = 1, .limit = 2}));
  Print(input, "ClaimList", inventory::ClaimsJson(s));
  Print(input, "ClaimList", inventory::ClaimsJson(s, "", "reserved"));
  Print(input, "Graph", inventory::GraphJson(s));
  Print(input, "Graph", inventory::GraphJson(s, {.all_devices = false}));
  Print(input, "Diagnostics", inventory::DiagnosticsJson(s));
  for (const auto& claim : PendingClaims(s)) {
    Print(input, "ClaimDiagnosis", inventory::ClaimDiagnosisJson(s, claim));
  }
  auto changes = inventory::ChangesJson(empty.snapshot().value(), s);
  Print(input, "ChangeEvent", changes.ok() ? Result<std::string>(changes->json) : Result<std::string>(changes.error()));
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) Views(argv[i]);
  return 0;
}
