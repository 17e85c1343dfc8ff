// Field tables of the api types: the single description from which the JSON decoder and encoder
// are generated. Each Schema<T> lists T's JSON fields in Go struct order (the order Kubernetes
// writes them), so that encoded output matches the API server's byte for byte.
#ifndef DRAFORGE_API_INTERNAL_SCHEMA_H_
#define DRAFORGE_API_INTERNAL_SCHEMA_H_

#include <string_view>
#include <tuple>

#include "api/device_class.h"
#include "api/device_taint_rule.h"
#include "api/empty_spelling.h"
#include "api/meta.h"
#include "api/node.h"
#include "api/node_selector.h"
#include "api/pod.h"
#include "api/resource_claim.h"
#include "api/resource_claim_template.h"
#include "api/resource_pool_status_request.h"
#include "api/resource_slice.h"

namespace draforge::api::internal {

template <typename C, typename M>
struct FieldDesc {
  std::string_view name;
  M C::*member;
  using Class = C;
  using Member = M;
};

template <typename C, typename M>
constexpr FieldDesc<C, M> F(std::string_view name, M C::*member) {
  return {name, member};
}

// A field whose Go JSON tag has no omitempty (see api/empty_spelling.h): `spelling` records whether
// an unset value was absent, null or [] so that the encoder writes it back the same way.
template <typename C, typename M>
struct NullableFieldDesc {
  std::string_view name;
  M C::*member;
  EmptySpelling C::*spelling;
  using Class = C;
  using Member = M;
};

template <typename C, typename M>
constexpr NullableFieldDesc<C, M> N(std::string_view name, M C::*member, EmptySpelling C::*spelling) {
  return {name, member, spelling};
}

// Whether a field descriptor is a NullableFieldDesc.
template <typename D>
concept HasSpelling = requires(const D& d) { d.spelling; };

// Schema<T>::Fields() returns a tuple of FieldDesc. Schema<T>::kOther, when present, names a RawFields
// member that receives unknown fields (types that DRAForge models only in part).
template <typename T>
struct Schema;

template <typename T, typename = void>
struct HasOther : std::false_type {};
template <typename T>
struct HasOther<T, std::void_t<decltype(Schema<T>::kOther)>> : std::true_type {};

template <typename T, typename = void>
struct IsStruct : std::false_type {};
template <typename T>
struct IsStruct<T, std::void_t<decltype(Schema<T>::Fields())>> : std::true_type {};

#define DRAFORGE_SCHEMA(Type, ...)                         \
  template <>                                              \
  struct Schema<Type> {                                    \
    using T = Type;                                        \
    static constexpr auto Fields() { return std::make_tuple(__VA_ARGS__); } \
  }
#define DRAFORGE_SCHEMA_WITH_OTHER(Type, OtherMember, ...) \
  template <>                                              \
  struct Schema<Type> {                                    \
    using T = Type;                                        \
    static constexpr auto kOther = &Type::OtherMember;     \
    static constexpr auto Fields() { return std::make_tuple(__VA_ARGS__); } \
  }

// --- meta/v1 ---
DRAFORGE_SCHEMA(OwnerReference, F("apiVersion", &T::api_version), F("kind", &T::kind), F("name", &T::name),
                F("uid", &T::uid), F("controller", &T::controller),
                F("blockOwnerDeletion", &T::block_owner_deletion));
DRAFORGE_SCHEMA(ManagedFieldsEntry, F("manager", &T::manager), F("operation", &T::operation),
                F("apiVersion", &T::api_version), F("time", &T::time), F("fieldsType", &T::fields_type),
                F("fieldsV1", &T::fields_v1), F("subresource", &T::subresource));
DRAFORGE_SCHEMA(ObjectMeta, F("name", &T::name), F("generateName", &T::generate_name),
                F("namespace", &T::namespace_), F("selfLink", &T::self_link), F("uid", &T::uid),
                F("resourceVersion", &T::resource_version), F("generation", &T::generation),
                N("creationTimestamp", &T::creation_timestamp, &T::creation_timestamp_spelling),
                F("deletionTimestamp", &T::deletion_timestamp),
                F("deletionGracePeriodSeconds", &T::deletion_grace_period_seconds), F("labels", &T::labels),
                F("annotations", &T::annotations), F("ownerReferences", &T::owner_references),
                F("finalizers", &T::finalizers), F("managedFields", &T::managed_fields));
DRAFORGE_SCHEMA(Condition, F("type", &T::type), F("status", &T::status),
                F("observedGeneration", &T::observed_generation),
                N("lastTransitionTime", &T::last_transition_time, &T::last_transition_time_spelling),
                F("reason", &T::reason),
                F("message", &T::message));

// --- core/v1 NodeSelector ---
DRAFORGE_SCHEMA(NodeSelectorRequirement, F("key", &T::key), F("operator", &T::operator_), F("values", &T::values));
DRAFORGE_SCHEMA(NodeSelectorTerm, F("matchExpressions", &T::match_expressions), F("matchFields", &T::match_fields));
DRAFORGE_SCHEMA(NodeSelector, N("nodeSelectorTerms", &T::node_selector_terms, &T::node_selector_terms_spelling));

// --- resource/v1 shared ---
DRAFORGE_SCHEMA(CELDeviceSelector, F("expression", &T::expression));
DRAFORGE_SCHEMA(DeviceSelector, F("cel", &T::cel));
DRAFORGE_SCHEMA(OpaqueDeviceConfiguration, F("driver", &T::driver), F("parameters", &T::parameters));
DRAFORGE_SCHEMA(DeviceTaint, F("key", &T::key), F("value", &T::value), F("effect", &T::effect),
                F("timeAdded", &T::time_added));
DRAFORGE_SCHEMA(DeviceToleration, F("key", &T::key), F("operator", &T::operator_), F("value", &T::value),
                F("effect", &T::effect), F("tolerationSeconds", &T::toleration_seconds));

// --- DeviceClass ---
DRAFORGE_SCHEMA(DeviceClassConfiguration, F("opaque", &T::opaque));
DRAFORGE_SCHEMA(DeviceClassSpec, F("selectors", &T::selectors), F("config", &T::config),
                F("extendedResourceName", &T::extended_resource_name));
DRAFORGE_SCHEMA(DeviceClass, F("metadata", &T::metadata), F("spec", &T::spec));

// --- ResourceClaim ---
DRAFORGE_SCHEMA(CapacityRequirements, F("requests", &T::requests));
DRAFORGE_SCHEMA(DeviceDerivedAttribute, F("name", &T::name), F("expression", &T::expression));
DRAFORGE_SCHEMA(ExactDeviceRequest, F("deviceClassName", &T::device_class_name), F("selectors", &T::selectors),
                F("allocationMode", &T::allocation_mode), F("count", &T::count),
                F("adminAccess", &T::admin_access), F("tolerations", &T::tolerations),
                F("capacity", &T::capacity), F("derivedAttributes", &T::derived_attributes));
DRAFORGE_SCHEMA(DeviceSubRequest, F("name", &T::name), F("deviceClassName", &T::device_class_name),
                F("selectors", &T::selectors), F("allocationMode", &T::allocation_mode), F("count", &T::count),
                F("tolerations", &T::tolerations), F("capacity", &T::capacity),
                F("derivedAttributes", &T::derived_attributes));
DRAFORGE_SCHEMA(DeviceRequest, F("name", &T::name), F("exactly", &T::exactly),
                F("firstAvailable", &T::first_available));
DRAFORGE_SCHEMA(DeviceConstraint, F("requests", &T::requests), F("matchAttribute", &T::match_attribute),
                F("distinctAttribute", &T::distinct_attribute));
DRAFORGE_SCHEMA(DeviceClaimConfiguration, F("requests", &T::requests), F("opaque", &T::opaque));
DRAFORGE_SCHEMA(DeviceClaim, N("requests", &T::requests, &T::requests_spelling), F("constraints", &T::constraints),
                F("config", &T::config));
DRAFORGE_SCHEMA(ResourceClaimSpec, F("devices", &T::devices));
DRAFORGE_SCHEMA(DeviceRequestAllocationResult, F("request", &T::request), F("driver", &T::driver),
                F("pool", &T::pool), F("device", &T::device), F("adminAccess", &T::admin_access),
                F("tolerations", &T::tolerations), F("bindingConditions", &T::binding_conditions),
                F("bindingFailureConditions", &T::binding_failure_conditions), F("shareID", &T::share_id),
                F("consumedCapacity", &T::consumed_capacity), F("skipNodeOperations", &T::skip_node_operations));
DRAFORGE_SCHEMA(DeviceAllocationConfiguration, F("source", &T::source), F("requests", &T::requests),
                F("opaque", &T::opaque));
DRAFORGE_SCHEMA(DeviceAllocationResult, F("results", &T::results), F("config", &T::config));
DRAFORGE_SCHEMA(AllocationResult, F("devices", &T::devices), F("nodeSelector", &T::node_selector),
                F("allocationTimestamp", &T::allocation_timestamp));
DRAFORGE_SCHEMA(ResourceClaimConsumerReference, F("apiGroup", &T::api_group), F("resource", &T::resource),
                F("name", &T::name), F("uid", &T::uid));
DRAFORGE_SCHEMA(NetworkDeviceData, F("interfaceName", &T::interface_name), F("ips", &T::ips),
                F("hardwareAddress", &T::hardware_address));
DRAFORGE_SCHEMA(AllocatedDeviceStatus, F("driver", &T::driver), F("pool", &T::pool), F("device", &T::device),
                F("shareID", &T::share_id), N("conditions", &T::conditions, &T::conditions_spelling),
                F("data", &T::data),
                F("networkData", &T::network_data));
DRAFORGE_SCHEMA(ResourceClaimStatus, F("allocation", &T::allocation), F("reservedFor", &T::reserved_for),
                F("devices", &T::devices));
DRAFORGE_SCHEMA(ResourceClaim, F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status));

// --- ResourceClaimTemplate ---
DRAFORGE_SCHEMA(ResourceClaimTemplateSpec, F("metadata", &T::metadata), F("spec", &T::spec));
DRAFORGE_SCHEMA(ResourceClaimTemplate, F("metadata", &T::metadata), F("spec", &T::spec));

// --- ResourceSlice ---
DRAFORGE_SCHEMA(ResourcePool, F("name", &T::name), F("generation", &T::generation),
                F("resourceSliceCount", &T::resource_slice_count));
DRAFORGE_SCHEMA(DeviceAttribute::Fields, F("int", &T::int_value), F("bool", &T::bool_value),
                F("string", &T::string_value), F("version", &T::version_value), F("ints", &T::ints),
                F("bools", &T::bools), F("strings", &T::strings), F("versions", &T::versions));
DRAFORGE_SCHEMA(CapacityRequestPolicyRange, F("min", &T::min), F("max", &T::max), F("step", &T::step));
DRAFORGE_SCHEMA(CapacityRequestPolicy, N("default", &T::default_, &T::default_spelling),
                F("validValues", &T::valid_values),
                F("validRange", &T::valid_range));
DRAFORGE_SCHEMA(DeviceCapacity, F("value", &T::value), F("requestPolicy", &T::request_policy));
DRAFORGE_SCHEMA(Counter, F("value", &T::value));
DRAFORGE_SCHEMA(CounterSet, F("name", &T::name), F("counters", &T::counters));
DRAFORGE_SCHEMA(DeviceCounterConsumption, F("counterSet", &T::counter_set), F("counters", &T::counters),
                F("compatibilityGroups", &T::compatibility_groups));
DRAFORGE_SCHEMA(NodeAllocatableResourceMapping, F("capacityKey", &T::capacity_key),
                F("capacityMultiplier", &T::capacity_multiplier), F("deviceMultiplier", &T::device_multiplier));
DRAFORGE_SCHEMA(NodeAllocatableResourceOverhead, F("perPod", &T::per_pod), F("perContainer", &T::per_container));
DRAFORGE_SCHEMA(NodeAllocatableResource, F("mapping", &T::mapping), F("overhead", &T::overhead));
DRAFORGE_SCHEMA(Device, F("name", &T::name), F("attributes", &T::attributes), F("capacity", &T::capacity),
                F("consumesCounters", &T::consumes_counters), F("nodeName", &T::node_name),
                F("nodeSelector", &T::node_selector), F("allNodes", &T::all_nodes), F("taints", &T::taints),
                F("bindsToNode", &T::binds_to_node), F("bindingConditions", &T::binding_conditions),
                F("bindingFailureConditions", &T::binding_failure_conditions),
                F("allowMultipleAllocations", &T::allow_multiple_allocations),
                F("nodeAllocatableResources", &T::node_allocatable_resources));
DRAFORGE_SCHEMA(ResourceSliceSpec, F("driver", &T::driver), F("pool", &T::pool), F("nodeName", &T::node_name),
                F("nodeSelector", &T::node_selector), F("allNodes", &T::all_nodes), F("devices", &T::devices),
                F("perDeviceNodeSelection", &T::per_device_node_selection),
                F("sharedCounters", &T::shared_counters),
                F("partitionTypeAttribute", &T::partition_type_attribute),
                F("skipNodeOperations", &T::skip_node_operations));
DRAFORGE_SCHEMA(ResourceSlice, F("metadata", &T::metadata), F("spec", &T::spec));

// --- DeviceTaintRule ---
DRAFORGE_SCHEMA(DeviceTaintSelector, F("driver", &T::driver), F("pool", &T::pool), F("device", &T::device));
DRAFORGE_SCHEMA(DeviceTaintRuleSpec, F("deviceSelector", &T::device_selector), F("taint", &T::taint));
DRAFORGE_SCHEMA(DeviceTaintRuleStatus, F("conditions", &T::conditions));
DRAFORGE_SCHEMA(DeviceTaintRule, F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status));

// --- ResourcePoolStatusRequest (v1alpha3) ---
DRAFORGE_SCHEMA(ResourcePoolStatusRequestSpec, F("driver", &T::driver), F("poolName", &T::pool_name),
                F("limit", &T::limit), F("defaultPartitionTypeAttribute", &T::default_partition_type_attribute));
DRAFORGE_SCHEMA(PartitionSummary, F("attribute", &T::attribute), F("type", &T::type), F("total", &T::total),
                F("allocatable", &T::allocatable));
DRAFORGE_SCHEMA(ShareableCapacitySummary, F("name", &T::name), F("total", &T::total),
                F("consumed", &T::consumed), F("available", &T::available));
DRAFORGE_SCHEMA(ShareableSummary, F("fullyAvailableDevices", &T::fully_available_devices),
                F("partiallyAvailableDevices", &T::partially_available_devices), F("capacity", &T::capacity));
DRAFORGE_SCHEMA(PoolStatus, F("driver", &T::driver), F("poolName", &T::pool_name),
                F("generation", &T::generation), F("resourceSliceCount", &T::resource_slice_count),
                F("totalDevices", &T::total_devices), F("allocatedDevices", &T::allocated_devices),
                F("availableDevices", &T::available_devices), F("unavailableDevices", &T::unavailable_devices),
                F("nodeName", &T::node_name), F("validationError", &T::validation_error),
                F("partitionSummary", &T::partition_summary), F("shareableSummary", &T::shareable_summary));
DRAFORGE_SCHEMA(ResourcePoolStatusRequestStatus, F("poolCount", &T::pool_count), F("pools", &T::pools),
                F("conditions", &T::conditions));
DRAFORGE_SCHEMA(ResourcePoolStatusRequest, F("metadata", &T::metadata), F("spec", &T::spec),
                F("status", &T::status));

// --- core/v1 Pod and Node (partial; the rest is kept in `other`) ---
DRAFORGE_SCHEMA_WITH_OTHER(PodResourceClaim, other, F("name", &T::name),
                           F("resourceClaimName", &T::resource_claim_name),
                           F("resourceClaimTemplateName", &T::resource_claim_template_name));
DRAFORGE_SCHEMA(ContainerResourceClaim, F("name", &T::name), F("request", &T::request));
DRAFORGE_SCHEMA_WITH_OTHER(ResourceRequirements, other, F("claims", &T::claims));
DRAFORGE_SCHEMA_WITH_OTHER(Container, other, F("name", &T::name), F("resources", &T::resources));
DRAFORGE_SCHEMA_WITH_OTHER(PodSpec, other, F("initContainers", &T::init_containers),
                           N("containers", &T::containers, &T::containers_spelling),
                           F("nodeSelector", &T::node_selector),
                           F("nodeName", &T::node_name), F("resourceClaims", &T::resource_claims));
DRAFORGE_SCHEMA(PodResourceClaimStatus, F("name", &T::name), F("resourceClaimName", &T::resource_claim_name));
DRAFORGE_SCHEMA_WITH_OTHER(PodStatus, other, F("phase", &T::phase),
                           F("resourceClaimStatuses", &T::resource_claim_statuses));
DRAFORGE_SCHEMA(Pod, F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status));
DRAFORGE_SCHEMA(Node, F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status));

#undef DRAFORGE_SCHEMA
#undef DRAFORGE_SCHEMA_WITH_OTHER

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_SCHEMA_H_
