// kube_chaos_watcher: a kube::Reflector over ResourceClaims and ResourceSlices whose state a test can
// compare with the API server's (tests/sim/integration/chaos kills and restarts the API server and
// compacts etcd under it).
//
// Usage: kube_chaos_watcher --kubeconfig PATH --out FILE
// Every 200 ms (and once more on SIGTERM/SIGINT, then exits 0) it replaces FILE atomically with
//   {"synced": bool, "stats": {"lists":N, "relists_gone":N, "watches":N, "events":N, "errors":N},
//    "objects": {"ResourceClaim/NS/NAME": "RESOURCEVERSION", "ResourceSlice/NAME": "...", ...}}
// and logs the reflector's lines on stderr.
#include <csignal>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "api/codec.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/reflector.h"
#include "rapidjson/document.h"
#include "store/cluster.h"

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

std::string State(const draforge::kube::Reflector& reflector, const draforge::store::Cluster& cluster) {
  using draforge::api::Kind;
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("synced", reflector.HasSynced(), a);
  const draforge::kube::ReflectorStats st = reflector.stats();
  rapidjson::Value stats(rapidjson::kObjectType);
  stats.AddMember("lists", st.lists, a);
  stats.AddMember("relists_gone", st.relists_gone, a);
  stats.AddMember("watches", st.watches, a);
  stats.AddMember("events", st.events, a);
  stats.AddMember("errors", st.errors, a);
  doc.AddMember("stats", stats, a);
  rapidjson::Value objects(rapidjson::kObjectType);
  auto snapshot = cluster.snapshot();
  for (Kind kind : {Kind::kResourceClaim, Kind::kResourceSlice}) {
    for (const draforge::api::Object* o : snapshot->List(kind)) {
      const std::string key = absl::StrCat(kind == Kind::kResourceClaim ? "ResourceClaim/" : "ResourceSlice/",
                                           o->metadata().namespace_.value_or(""),
                                           kind == Kind::kResourceClaim ? "/" : "", o->metadata().name.value_or(""));
      objects.AddMember(rapidjson::Value(key.c_str(), a),
                        rapidjson::Value(o->metadata().resource_version.value_or("").c_str(), a), a);
    }
  }
  doc.AddMember("objects", objects, a);
  return draforge::api::WriteJson(doc, /*pretty=*/false);
}

void Write(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text << "\n";
  }
  std::rename(tmp.c_str(), path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kubeconfig") {
      kubeconfig = argv[i + 1];
    } else if (flag == "--out") {
      out = argv[i + 1];
    }
  }
  if (kubeconfig.empty() || out.empty()) {
    std::cerr << "usage: kube_chaos_watcher --kubeconfig PATH --out FILE\n";
    return 2;
  }
  auto config = draforge::kube::LoadKubeconfigFile(kubeconfig);
  if (!config.ok()) {
    std::cerr << "error: " << config.status().message() << "\n";
    return 2;
  }
  auto client = draforge::kube::Client::Create(*config);
  if (!client.ok()) {
    std::cerr << "error: " << client.status().message() << "\n";
    return 2;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  draforge::store::Cluster cluster;
  draforge::kube::ReflectorOptions options;
  options.kinds = {draforge::api::Kind::kResourceClaim, draforge::api::Kind::kResourceSlice};
  options.log = [](draforge::kube::LogLevel, std::string_view line) {
    std::cerr << absl::FormatTime("%H:%M:%E3S ", absl::Now(), absl::UTCTimeZone()) << line << std::endl;
  };
  draforge::kube::Reflector reflector(**client, cluster, options);
  // The API server may be restarting when this starts: retry the discovery until it answers.
  absl::Status started = reflector.Start();
  while (!started.ok() && !g_stop.load()) {
    absl::SleepFor(absl::Milliseconds(500));
    started = reflector.Start();
  }
  while (!g_stop.load()) {
    Write(out, State(reflector, cluster));
    absl::SleepFor(absl::Milliseconds(200));
  }
  reflector.Stop();
  Write(out, State(reflector, cluster));
  return 0;
}
