#include "sim/whatif_nodes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "sim/expand.h"
#include "sim/simulated_device_pool.h"

namespace draforge::sim {
namespace {

constexpr char kPools[] = "simulatedDevicePools";

// The template node's name of edit `v`, or an error naming `at`.
absl::StatusOr<std::string> TemplateName(const rapidjson::Value& v, const std::string& at) {
  auto node = v.FindMember("node");
  if (node == v.MemberEnd() || !node->value.IsObject()) {
    return absl::InvalidArgumentError(absl::StrCat(at, ".", kPools, ": needs a \"node\" template to publish for"));
  }
  auto meta = node->value.FindMember("metadata");
  if (meta != node->value.MemberEnd() && meta->value.IsObject()) {
    auto name = meta->value.FindMember("name");
    if (name != meta->value.MemberEnd() && name->value.IsString() && name->value.GetStringLength() > 0) {
      return std::string(name->value.GetString(), name->value.GetStringLength());
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(at, ".node.metadata.name: expected a non-empty string"));
}

// Expands the pools of edit `v` for its template node and appends their slices to its "slices".
absl::Status ExpandEdit(rapidjson::Value& v, const std::string& at, rapidjson::Document::AllocatorType& a) {
  ASSIGN_OR_RETURN(const std::string node, TemplateName(v, at));
  rapidjson::Value& pools = v[kPools];
  if (!pools.IsArray()) return absl::InvalidArgumentError(absl::StrCat(at, ".", kPools, ": expected an array"));
  if (!v.HasMember("slices")) v.AddMember("slices", rapidjson::Value(rapidjson::kArrayType), a);
  rapidjson::Value& slices = v["slices"];
  if (!slices.IsArray()) return absl::InvalidArgumentError(absl::StrCat(at, ".slices: expected an array"));
  for (rapidjson::SizeType i = 0; i < pools.Size(); ++i) {
    const std::string pat = absl::StrCat(at, ".", kPools, "[", i, "]");
    auto pool = DecodeSimulatedDevicePool(pools[i]);
    if (!pool.ok()) return absl::InvalidArgumentError(absl::StrCat(pat, ": ", pool.status().message()));
    pool->spec.nodes = NodeSelection{{node}, std::nullopt, false};
    auto expansion = Expand(*pool);
    if (!expansion.ok()) return absl::InvalidArgumentError(absl::StrCat(pat, ": ", expansion.status().message()));
    for (api::ResourceSlice& s : expansion->slices) {
      auto encoded = api::EncodeObject(api::Object{"resource.k8s.io/v1", std::move(s)});
      if (!encoded.ok()) return absl::InternalError(absl::StrCat(pat, ": ", encoded.status().message()));
      rapidjson::Value copy;
      copy.CopyFrom(*encoded, a);
      slices.PushBack(copy, a);
    }
  }
  v.RemoveMember(kPools);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ExpandWhatifNodePools(std::string_view edits_json) {
  rapidjson::Document d;
  d.Parse(edits_json.data(), edits_json.size());
  if (d.HasParseError() || !d.IsArray()) return absl::InvalidArgumentError("edits: expected a JSON array of edits");
  bool changed = false;
  for (rapidjson::SizeType i = 0; i < d.Size(); ++i) {
    if (!d[i].IsObject() || !d[i].HasMember(kPools)) continue;
    RETURN_IF_ERROR(ExpandEdit(d[i], absl::StrCat("edits[", i, "]"), d.GetAllocator()));
    changed = true;
  }
  if (!changed) return std::string(edits_json);
  return api::WriteJson(d, false);
}

}  // namespace draforge::sim
