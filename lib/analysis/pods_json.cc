#include "analysis/pods_json.h"

#include "analysis/claim_state.h"
#include "analysis/internal/json_writer.h"

namespace draforge::analysis {
namespace {

void WritePodClaim(internal::JsonWriter& w, const store::PodClaim& pc) {
  w.StartObject();
  internal::KeyStr(w, "name", pc.ref.name);
  internal::KeyStr(w, "resourceClaimName", pc.ref.claim_name);
  internal::KeyStr(w, "resourceClaimTemplateName", pc.ref.template_name);
  internal::KeyBool(w, "stored", pc.claim != nullptr);
  internal::KeyBool(w, "reserved", pc.reserved);
  internal::KeyStr(w, "state", pc.claim != nullptr ? ClaimStateName(StateOf(*pc.claim)) : "");
  w.EndObject();
}

void WritePod(internal::JsonWriter& w, const store::Snapshot& snapshot, const api::Pod& pod) {
  const std::string ns = pod.metadata.namespace_.value_or(""), name = pod.metadata.name.value_or("");
  w.StartObject();
  internal::KeyStr(w, "namespace", ns);
  internal::KeyStr(w, "name", name);
  internal::KeyStr(w, "uid", pod.metadata.uid.value_or(""));
  internal::KeyStr(w, "node", pod.spec && pod.spec->node_name ? *pod.spec->node_name : "");
  internal::KeyStr(w, "phase", pod.status && pod.status->phase ? *pod.status->phase : "");
  internal::Key(w, "claims");
  w.StartArray();
  for (const store::PodClaim& pc : snapshot.ClaimsForPod(ns, name)) WritePodClaim(w, pc);
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string PodsJson(const store::Snapshot& snapshot, std::string_view ns) {
  return internal::ItemsView(snapshot, [&](internal::JsonWriter& w) {
    for (const auto* obj : snapshot.List(api::Kind::kPod, ns)) WritePod(w, snapshot, std::get<api::Pod>(obj->value));
  });
}

}  // namespace draforge::analysis
