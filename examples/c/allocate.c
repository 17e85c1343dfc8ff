/* allocate: loads Kubernetes objects from files and allocates one claim on one node through
 * DRAForge's C ABI, as kube-scheduler would.
 *
 *   allocate NODE NAMESPACE/CLAIM FILE...
 *
 * Build against an installed DRAForge:
 *   cc -std=c99 allocate.c $(pkg-config --cflags --libs draforge) -o allocate
 *
 * Exit status: 0 allocated, 1 does not fit (the reasons and the explanation are printed), 2 bad
 * input (the error, with the object and field it names). */
#include <stdio.h>

#include "draforge/draforge.h"

static int fail(draforge_error *error) {
  fprintf(stderr, "error: %s\n", draforge_error_message(error));
  if (draforge_error_object(error)[0] != '\0') {
    fprintf(stderr, "  object: %s\n  field:  %s\n", draforge_error_object(error), draforge_error_field(error));
  }
  draforge_error_destroy(error);
  return 2;
}

int main(int argc, char **argv) {
  draforge_cluster *cluster = NULL;
  draforge_snapshot *snapshot = NULL;
  draforge_allocation_result *result = NULL;
  draforge_error *error = NULL;
  draforge_allocate_options options = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  const char *claims[1];
  int i, code = 2;

  if (argc < 4) {
    fprintf(stderr, "usage: %s NODE NAMESPACE/CLAIM FILE...\n", argv[0]);
    return 2;
  }
  if (draforge_cluster_create(&cluster, NULL, &error) != DRAFORGE_OK) return fail(error);
  for (i = 3; i < argc; ++i) {
    if (draforge_cluster_apply_file(cluster, argv[i], NULL, &error) != DRAFORGE_OK) {
      draforge_cluster_destroy(cluster);
      return fail(error);
    }
  }
  if (draforge_cluster_snapshot(&snapshot, cluster, &error) != DRAFORGE_OK) {
    draforge_cluster_destroy(cluster);
    return fail(error);
  }
  draforge_cluster_destroy(cluster); /* the snapshot outlives it */

  claims[0] = argv[2];
  if (draforge_allocate(&result, snapshot, claims, 1, argv[1], &options, &error) != DRAFORGE_OK) {
    code = fail(error);
  } else if (draforge_allocation_result_outcome(result) == DRAFORGE_OUTCOME_ALLOCATED) {
    draforge_buffer allocation = {NULL, 0};
    if (draforge_allocation_result_allocation_json(&allocation, result, 0, &error) != DRAFORGE_OK) {
      code = fail(error);
    } else {
      printf("allocated %s on %s\n%s\n", argv[2], argv[1], allocation.ptr);
      draforge_buffer_dispose(&allocation);
      code = 0;
    }
  } else {
    draforge_explanation *explanation = NULL;
    size_t r;
    printf("%s does not fit on %s\n", argv[2], argv[1]);
    for (r = 0; r < draforge_allocation_result_reason_count(result); ++r) {
      printf("reason: %s\n", draforge_allocation_result_reason(result, r));
    }
    if (draforge_explain(&explanation, snapshot, argv[2], argv[1], &options, &error) == DRAFORGE_OK) {
      printf("why: %s\n", draforge_explanation_summary(explanation));
      draforge_explanation_destroy(explanation);
    } else {
      draforge_error_destroy(error);
    }
    code = 1;
  }
  draforge_allocation_result_destroy(result);
  draforge_snapshot_destroy(snapshot);
  return code;
}
