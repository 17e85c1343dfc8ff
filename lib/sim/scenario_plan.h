// Plans of `scenario apply` and `scenario reset`: which objects a scenario creates in a cluster, in
// which order, with which labels, and how a front end tells its own objects from someone else's.
// Pure: the writes themselves are the front end's (the CLI does them with lib/kube).
#ifndef DRAFORGE_SIM_SCENARIO_PLAN_H_
#define DRAFORGE_SIM_SCENARIO_PLAN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "rapidjson/document.h"

namespace draforge::sim {

// The kinds `scenario apply` creates, in creation order (Namespace, DeviceClass,
// SimulatedDevicePool, ResourceSlice, DeviceTaintRule, ResourceClaimTemplate, ResourceClaim, Pod);
// `scenario reset` deletes them in the reverse order. The views point to static strings.
const std::vector<std::string_view>& ScenarioKinds();

// Whether SimulatedDevicePools are created as they are (for draforge-controller) or replaced by the
// ResourceSlices they expand to.
enum class ScenarioMode { kSlices, kPools };

// One object to create.
struct ScenarioWrite {
  // api::Kind::kOther for a SimulatedDevicePool or a Namespace; the modelled kind otherwise.
  api::Kind kind = api::Kind::kOther;
  std::string kind_name;    // "DeviceClass", "SimulatedDevicePool", "Namespace", ...
  std::string api_version;  // of the body: resource.k8s.io objects are written as resource.k8s.io/v1
  std::string namespace_;   // "" for a cluster-scoped kind; "default" for a namespaced object without one
  std::string name;
  // The object to create: no status, no server-set metadata (resourceVersion, uid,
  // creationTimestamp, managedFields, generation, selfLink, deletion fields), labelled with
  // kScenarioLabel=<scenario> and kManagedByLabel=kManagedByValue.
  rapidjson::Document body;

  // "deviceclass/NAME", "resourceclaim/NS/NAME": how the CLI names the object in its output.
  std::string Ref() const;
};

struct ScenarioApplyPlan {
  std::vector<ScenarioWrite> writes;  // in ScenarioKinds() order, input order within a kind
  // Objects left out on purpose, one sentence each ("node/node-1 skipped: nodes come from the cluster").
  std::vector<std::string> notes;
};

// The plan for applying `objects` (decoded, in input order) as scenario `scenario` (a valid label
// value, see ValidScenarioName). Every pool is expanded first, in both modes, so that a pool that
// would not expand stops the plan before anything is written. Errors (nothing planned):
// InvalidArgument for a SimulatedDevicePool that does not decode or expand (the message names it),
// for a kind apply does not create (named with its apiVersion and name), and for an object that
// cannot be encoded.
absl::StatusOr<ScenarioApplyPlan> PlanScenarioApply(const std::vector<api::Object>& objects,
                                                    std::string_view scenario, ScenarioMode mode);

// Whether `object` (a whole object as JSON) carries kScenarioLabel=`scenario`: apply only ever
// overwrites, and reset only deletes, such objects.
bool OwnedByScenario(const rapidjson::Value& object, std::string_view scenario);

// A scenario name from a file or folder path (trailing '/' ignored): the last element without its
// extension, or for a file called scenario.<ext> the name of its folder; lower-cased, characters
// other than letters, digits, '-', '_' and '.' replaced by '-', trimmed to alphanumerics at both
// ends and to 63 characters. Pure string work (the file system is not read). May be empty (then the
// caller must ask for a name).
std::string ScenarioNameFromPath(std::string path);

// Whether `name` is a valid label value, as the scenario label needs: 1 to 63 letters, digits, '-',
// '_' or '.', alphanumeric at both ends.
bool ValidScenarioName(std::string_view name);

}  // namespace draforge::sim

#endif  // DRAFORGE_SIM_SCENARIO_PLAN_H_
