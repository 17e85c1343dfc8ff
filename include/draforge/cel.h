/* DRAForge C ABI: CEL device selectors as Kubernetes DRA evaluates them (cel-go semantics, the
 * Kubernetes CEL libraries, the DRA cost limit).
 *
 * A compile error and a runtime error are both DRAFORGE_EINVALID; the message says which
 * ("compilation failed: ERROR: <input>:1:8: ..." or "runtime error: no such key: model").
 *
 * Thread-safety: a draforge_cel_selector is immutable once compiled and may be evaluated from any
 * number of threads at once.
 */
#ifndef DRAFORGE_CEL_H
#define DRAFORGE_CEL_H

#include <stdint.h>

#include "draforge/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of the CEL calls. Initialise with DRAFORGE_CEL_OPTIONS_INIT or draforge_cel_options_init(). */
typedef struct draforge_cel_options {
  unsigned int version; /* DRAFORGE_CEL_OPTIONS_VERSION */
  /* Feature gates on top of Kubernetes 1.37's defaults; DRAConsumableCapacity and
   * DRAListTypeAttributes change the CEL environment. NULL or "": the defaults. */
  const char *feature_gates;
  /* Non-zero: reject selectors whose estimated worst-case cost exceeds the limit (what API
   * validation does for new objects); zero: as the scheduler compiles them. */
  int check_estimated_cost;
  /* Runtime cost limit; 0: Kubernetes' 1000000. */
  int64_t cost_limit;
} draforge_cel_options;

#define DRAFORGE_CEL_OPTIONS_VERSION 1
#define DRAFORGE_CEL_OPTIONS_INIT {DRAFORGE_CEL_OPTIONS_VERSION, NULL, 0, 0}

/* Fills `options` with the defaults of `version`. Errors: DRAFORGE_EINVALID for NULL or an unknown
 * version. */
DRAFORGE_API int draforge_cel_options_init(draforge_cel_options *options, unsigned int version);

/* A compiled selector. Destroy with draforge_cel_selector_destroy(). */
typedef struct draforge_cel_selector draforge_cel_selector;

/* Compiles `expression` (a bool selector over `device`) into `*out`. `options` may be NULL.
 * Errors: DRAFORGE_EINVALID with cel-go's message and position; DRAFORGE_ELIMIT when
 * check_estimated_cost is set and the estimate exceeds the limit. */
DRAFORGE_API int draforge_cel_selector_compile(draforge_cel_selector **out, const char *expression,
                                               const draforge_cel_options *options, draforge_error **error);
/* Frees `selector`; NULL is a no-op. */
DRAFORGE_API void draforge_cel_selector_destroy(draforge_cel_selector *selector);
/* The estimated worst-case cost (saturating at INT64_MAX). */
DRAFORGE_API int64_t draforge_cel_selector_estimated_cost(const draforge_cel_selector *selector);
/* Evaluates `selector` on one device given as JSON in the resource.k8s.io/v1 Device shape plus its
 * driver: {"driver":"gpu.example.com","attributes":{"model":{"string":"a100"}},
 * "capacity":{"memory":{"value":"80Gi"}},"allowMultipleAllocations":false}. Sets `*matches` to 1 or 0
 * and `*cost` (may be NULL) to the runtime cost. Errors: DRAFORGE_EINVALID for a malformed device or
 * a CEL runtime error (message starts with "runtime error: "), DRAFORGE_ELIMIT for the cost limit. */
DRAFORGE_API int draforge_cel_selector_evaluate(const draforge_cel_selector *selector, const char *device_json,
                                                size_t device_json_size, int *matches, int64_t *cost,
                                                draforge_error **error);

/* Compiles and evaluates `expression` of any result type with `device` unbound (reading it is the
 * runtime error "no such attribute(s): device"), as `draforge cel eval` does. `*out` receives
 * {"value":"<CEL literal>","type":"<checked type>","cost":N,"estimatedCost":N}. Errors as above. */
DRAFORGE_API int draforge_cel_evaluate(draforge_buffer *out, const char *expression,
                                       const draforge_cel_options *options, draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_CEL_H */
