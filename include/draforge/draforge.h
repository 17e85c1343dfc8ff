/* DRAForge: the stable C ABI. Include this header only; it includes the others.
 *
 * Headers by domain: common.h (errors, buffers), objects.h (decoding and encoding objects),
 * cluster.h (the store, snapshots, graph and pools), alloc.h (allocation and explain), cel.h (CEL
 * selectors), cdi.h (CDI specs for a node: generate, validate, write), files.h (writing a file
 * atomically), kube.h (a live cluster: kubeconfig rules, REST, the live source, leader election),
 * reconcile.h (the simulation controller's plans). docs/c-api.md is the guide; docs/api-stability.md
 * the compatibility promise.
 *
 * Thread-safety: functions on different handles may run concurrently; each header says what may be
 * shared between threads.
 */
#ifndef DRAFORGE_DRAFORGE_H
#define DRAFORGE_DRAFORGE_H

#include "draforge/alloc.h"
#include "draforge/cdi.h"
#include "draforge/cel.h"
#include "draforge/cluster.h"
#include "draforge/common.h"
#include "draforge/files.h"
#include "draforge/inventory.h"
#include "draforge/kube.h"
#include "draforge/objects.h"
#include "draforge/package.h"
#include "draforge/place.h"
#include "draforge/reconcile.h"
#include "draforge/sim.h"
#include "draforge/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string ("0.1.0"), to compare with DRAFORGE_VERSION_STRING from the header a
 * program was compiled with. */
DRAFORGE_API const char *draforge_version(void);
/* The library's version numbers; any pointer may be NULL. */
DRAFORGE_API void draforge_version_numbers(int *major, int *minor, int *micro);
/* The Kubernetes release whose API and feature-gate defaults the library targets ("1.37"). */
DRAFORGE_API const char *draforge_kubernetes_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DRAFORGE_DRAFORGE_H */
