/* The C ABI from C99: compiled with -std=c99 -Wall -Wextra -Wpedantic -Werror (tests/capi/meson.build),
 * it proves the public header is C99, that every options struct's _INIT macro and _init() agree, and
 * that a C caller can load objects, allocate, explain and evaluate CEL. Prints TAP. */
#include <stdio.h>
#include <string.h>

#include "draforge/draforge.h"

static int test_number = 0;
static int failures = 0;

static void check(int ok, const char *name) {
  ++test_number;
  if (!ok) ++failures;
  printf("%s %d - %s\n", ok ? "ok" : "not ok", test_number, name);
}

static const char cluster_yaml[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: gpu}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: s}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  nodeName: node-1\n"
    "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
    "  devices: [{name: gpu-0}, {name: gpu-1}]\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: c, namespace: default}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}]}}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: big, namespace: default}\n"
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 5}}]}}\n";

int main(void) {
  draforge_allocate_options by_macro = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  draforge_allocate_options by_call;
  draforge_cel_options cel_macro = DRAFORGE_CEL_OPTIONS_INIT;
  draforge_cel_options cel_call;
  draforge_cdi_options cdi_macro = DRAFORGE_CDI_OPTIONS_INIT;
  draforge_cdi_options cdi_call;
  draforge_cluster *cluster = NULL;
  draforge_snapshot *snapshot = NULL;
  draforge_allocation_result *result = NULL;
  draforge_allocation_result *unpruned_result = NULL;
  draforge_allocate_options unpruned = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  draforge_buffer unpruned_buffer = {NULL, 0};
  draforge_explanation *explanation = NULL;
  draforge_error *error = NULL;
  draforge_buffer buffer = {NULL, 0};
  const char *claims[1];
  size_t applied = 0;
  int rc;

  printf("1..12\n");
  memset(&by_call, 0x5A, sizeof by_call);
  rc = draforge_allocate_options_init(&by_call, DRAFORGE_ALLOCATE_OPTIONS_VERSION);
  check(rc == DRAFORGE_OK && by_call.version == by_macro.version && by_call.feature_gates == by_macro.feature_gates &&
            by_call.unlock_locked_gates == by_macro.unlock_locked_gates &&
            by_call.node_labels_json == by_macro.node_labels_json && by_call.max_steps == by_macro.max_steps &&
            by_call.prune_search == by_macro.prune_search,
        "DRAFORGE_ALLOCATE_OPTIONS_INIT equals draforge_allocate_options_init()");
  memset(&cel_call, 0x5A, sizeof cel_call);
  rc = draforge_cel_options_init(&cel_call, DRAFORGE_CEL_OPTIONS_VERSION);
  check(rc == DRAFORGE_OK && cel_call.version == cel_macro.version && cel_call.feature_gates == cel_macro.feature_gates &&
            cel_call.check_estimated_cost == cel_macro.check_estimated_cost &&
            cel_call.cost_limit == cel_macro.cost_limit,
        "DRAFORGE_CEL_OPTIONS_INIT equals draforge_cel_options_init()");
  memset(&cdi_call, 0x5A, sizeof cdi_call);
  rc = draforge_cdi_options_init(&cdi_call, DRAFORGE_CDI_OPTIONS_VERSION);
  check(rc == DRAFORGE_OK && cdi_call.version == cdi_macro.version && cdi_call.drivers == cdi_macro.drivers &&
            cdi_call.max_version == cdi_macro.max_version && cdi_call.compat == cdi_macro.compat,
        "DRAFORGE_CDI_OPTIONS_INIT equals draforge_cdi_options_init()");
  check(strcmp(draforge_version(), DRAFORGE_VERSION_STRING) == 0, "runtime version equals the header's");

  rc = draforge_cluster_create(&cluster, NULL, &error);
  if (rc == DRAFORGE_OK) rc = draforge_cluster_apply(cluster, cluster_yaml, sizeof cluster_yaml - 1, &applied, &error);
  if (rc == DRAFORGE_OK) rc = draforge_cluster_snapshot(&snapshot, cluster, &error);
  check(rc == DRAFORGE_OK && applied == 4, "load four objects into a cluster and take a snapshot");
  if (rc != DRAFORGE_OK) printf("# %s\n", draforge_error_message(error));

  claims[0] = "default/c";
  rc = draforge_allocate(&result, snapshot, claims, 1, "node-1", &by_macro, &error);
  check(rc == DRAFORGE_OK && draforge_allocation_result_outcome(result) == DRAFORGE_OUTCOME_ALLOCATED &&
            draforge_allocation_result_claim_count(result) == 1,
        "allocate default/c on node-1");
  if (rc == DRAFORGE_OK) rc = draforge_allocation_result_allocation_json(&buffer, result, 0, &error);
  check(rc == DRAFORGE_OK && strstr(buffer.ptr, "\"device\":\"gpu-1\"") != NULL,
        "the allocation names gpu-0 and gpu-1");
  unpruned.prune_search = 0;
  rc = draforge_allocate(&unpruned_result, snapshot, claims, 1, "node-1", &unpruned, &error);
  if (rc == DRAFORGE_OK) rc = draforge_allocation_result_allocation_json(&unpruned_buffer, unpruned_result, 0, &error);
  check(rc == DRAFORGE_OK && buffer.ptr != NULL && unpruned_buffer.ptr != NULL &&
            strcmp(buffer.ptr, unpruned_buffer.ptr) == 0 &&
            draforge_allocation_result_search_steps(unpruned_result) >= draforge_allocation_result_search_steps(result),
        "prune_search = 0 (upstream's search) allocates the same devices, in no fewer steps");
  draforge_buffer_dispose(&unpruned_buffer);
  draforge_allocation_result_destroy(unpruned_result);
  draforge_buffer_dispose(&buffer);
  draforge_allocation_result_destroy(result);
  result = NULL;

  claims[0] = "default/big";
  rc = draforge_allocate(&result, snapshot, claims, 1, "node-1", NULL, &error);
  check(rc == DRAFORGE_OK && draforge_allocation_result_outcome(result) == DRAFORGE_OUTCOME_UNSCHEDULABLE &&
            draforge_allocation_result_reason_count(result) >= 1,
        "a claim that does not fit is a result with reasons, not an error");
  draforge_allocation_result_destroy(result);

  rc = draforge_explain(&explanation, snapshot, "default/big", "node-1", NULL, &error);
  check(rc == DRAFORGE_OK && strstr(draforge_explanation_summary(explanation), "gpu") != NULL,
        "explain says why default/big is pending");
  draforge_explanation_destroy(explanation);

  claims[0] = "default/none";
  rc = draforge_allocate(&result, snapshot, claims, 1, "node-1", NULL, &error);
  check(rc == DRAFORGE_ENOTFOUND && error != NULL && draforge_error_code_of(error) == DRAFORGE_ENOTFOUND &&
            strcmp(draforge_error_object(error), "ResourceClaim/default/none") == 0,
        "an unknown claim is DRAFORGE_ENOTFOUND naming the object");
  draforge_error_destroy(error);
  error = NULL;

  rc = draforge_cel_evaluate(&buffer, "'a' + 'b'", &cel_macro, &error);
  check(rc == DRAFORGE_OK && strstr(buffer.ptr, "\"value\":\"'ab'\"") != NULL, "CEL evaluates 'a' + 'b'");
  draforge_buffer_dispose(&buffer);

  draforge_snapshot_destroy(snapshot);
  draforge_cluster_destroy(cluster);
  draforge_error_destroy(error);
  printf("# %d passed, %d failed\n", test_number - failures, failures);
  return failures == 0 ? 0 : 1;
}
