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

/* The limits API validation puts on a DeviceSelector's CEL expression (Kubernetes 1.37): its
 * estimated worst-case cost and its length in bytes. */
#define DRAFORGE_CEL_SELECTOR_MAX_COST 1000000
#define DRAFORGE_CEL_SELECTOR_MAX_EXPRESSION_LENGTH 10240

/* The estimated worst-case cost of `selector` without saturation (cel-go reports a uint64;
 * draforge_cel_selector_estimated_cost() saturates at INT64_MAX), saturating at UINT64_MAX. */
DRAFORGE_API uint64_t draforge_cel_selector_estimated_cost_uint64(const draforge_cel_selector *selector);

/* Compiles `expression` with any result type (`device` bound) and stores its estimated worst-case
 * cost in `*cost`. `options` may be NULL; check_estimated_cost is ignored. Errors: DRAFORGE_EINVALID
 * with the compiler's message for an expression that does not compile. */
DRAFORGE_API int draforge_cel_estimate_cost(uint64_t *cost, const char *expression, const draforge_cel_options *options,
                                            draforge_error **error);

/* Evaluates `selector` on one device (as draforge_cel_selector_evaluate) and stores the outcome as
 * JSON in `*out`: {"matches":true|false,"cost":N} or, when evaluation fails at run time (a missing
 * attribute, the cost limit), {"runtimeError":"..."}: a runtime error is a result here. Errors:
 * DRAFORGE_EINVALID for NULL arguments or a device that does not decode ("device: ..."). */
DRAFORGE_API int draforge_cel_selector_evaluate_json(draforge_buffer *out, const draforge_cel_selector *selector,
                                                     const char *device_json, size_t device_json_size,
                                                     draforge_error **error);

/* Evaluates `selector` on every device of one ResourceSlice (`slice_json`: a whole object in any
 * served resource.k8s.io version) and stores {"driver","pool","devices":[{"name","matches"|
 * "runtimeError","cost","references":[true|false,...]}]} in `*out`, devices in slice order; each
 * "references" entry says whether the device has the attribute or capacity at the same index of
 * draforge_cel_selector_references_json(). Errors: DRAFORGE_EINVALID for NULL arguments or a slice
 * that does not decode. */
DRAFORGE_API int draforge_cel_selector_evaluate_slice(draforge_buffer *out, const draforge_cel_selector *selector,
                                                      const char *slice_json, size_t slice_json_size,
                                                      draforge_error **error);

/* The device attributes and capacities `selector` reads with constant names, in order of first
 * appearance, as JSON in `*out`: [{"kind":"attribute"|"capacity","domain","name","qualifiedName"}].
 * Names read with computed keys are not listed. Errors: DRAFORGE_EINVALID for NULL arguments. */
DRAFORGE_API int draforge_cel_selector_references_json(draforge_buffer *out, const draforge_cel_selector *selector,
                                                       draforge_error **error);

/* Reads one standalone device (the resource.k8s.io/v1 Device fields plus "driver") from JSON or YAML
 * text (JSON when the first non-blank character is '{') and stores it as JSON in `*out`, ready for
 * draforge_cel_selector_evaluate(). Errors: DRAFORGE_EINVALID for text that is not JSON/YAML, not
 * exactly one document ("expected one device, found 2 documents"), not an object, without "driver",
 * or with a field the ResourceSlice decoder rejects (the message names it). */
DRAFORGE_API int draforge_cel_device_parse(draforge_buffer *out, const char *data, size_t size,
                                           draforge_error **error);

/* Compiles and evaluates `expression` of any result type with `device` unbound, as
 * draforge_cel_evaluate(), but with compile and runtime errors as results: `*out` receives
 * {"value":"<CEL literal>","type","cost","estimatedCost"}, {"compileError":"..."} or
 * {"runtimeError":"..."}. Errors: DRAFORGE_EINVALID for NULL arguments or bad options. */
DRAFORGE_API int draforge_cel_evaluate_json(draforge_buffer *out, const char *expression,
                                            const draforge_cel_options *options, draforge_error **error);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_CEL_H */
