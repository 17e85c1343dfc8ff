// core/v1 Pod, as far as DRA needs it. Every field DRAForge does not model is kept verbatim in
// `other` (in input order) so that a Pod decodes and encodes without loss.
#ifndef DRAFORGE_API_POD_H_
#define DRAFORGE_API_POD_H_

#include <optional>
#include <string>
#include <vector>

#include "api/empty_spelling.h"
#include "api/map.h"
#include "api/meta.h"
#include "api/raw_json.h"

namespace draforge::api {

struct PodResourceClaim {
  std::optional<std::string> name;
  std::optional<std::string> resource_claim_name;
  std::optional<std::string> resource_claim_template_name;
  RawFields other;
  friend bool operator==(const PodResourceClaim&, const PodResourceClaim&) = default;
};

// core/v1 ResourceClaim: a container's reference to one of the pod's claims (optionally one request).
struct ContainerResourceClaim {
  std::optional<std::string> name;
  std::optional<std::string> request;
  friend bool operator==(const ContainerResourceClaim&, const ContainerResourceClaim&) = default;
};

struct ResourceRequirements {
  std::vector<ContainerResourceClaim> claims;
  RawFields other;  // limits, requests
  friend bool operator==(const ResourceRequirements&, const ResourceRequirements&) = default;
};

struct Container {
  std::optional<std::string> name;
  std::optional<ResourceRequirements> resources;
  RawFields other;
  friend bool operator==(const Container&, const Container&) = default;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  Map<std::string> node_selector;
  std::optional<std::string> node_name;
  std::vector<PodResourceClaim> resource_claims;
  RawFields other;
  EmptySpelling containers_spelling = EmptySpelling::kAbsent;  // `containers` has no omitempty
  friend bool operator==(const PodSpec&, const PodSpec&) = default;
};

struct PodResourceClaimStatus {
  std::optional<std::string> name;
  std::optional<std::string> resource_claim_name;
  friend bool operator==(const PodResourceClaimStatus&, const PodResourceClaimStatus&) = default;
};

struct PodStatus {
  std::optional<std::string> phase;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  RawFields other;
  friend bool operator==(const PodStatus&, const PodStatus&) = default;
};

struct Pod {
  ObjectMeta metadata;
  std::optional<PodSpec> spec;
  std::optional<PodStatus> status;
  friend bool operator==(const Pod&, const Pod&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_POD_H_
