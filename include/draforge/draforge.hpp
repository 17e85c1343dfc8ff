// DRAForge: the C++ API, header-only C++17 over the stable C ABI (libdraforge). Include this header
// only; link draforge::draforge (CMake) or `pkg-config --libs draforge`.
//
// Handles are RAII types (move-only where they can change, shared where immutable); strings go in as
// std::string_view; every fallible call returns draforge::Result<T>, which throws only if the
// caller asks for value() on an error. Thread-safety is that of the C handles (see each C header):
// Cluster calls may run concurrently; Snapshot and results are immutable.
#ifndef DRAFORGE_DRAFORGE_HPP
#define DRAFORGE_DRAFORGE_HPP

#include <string_view>

#include "draforge/cpp/alloc.hpp"
#include "draforge/cpp/cdi.hpp"
#include "draforge/cpp/cel.hpp"
#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/files.hpp"
#include "draforge/cpp/inventory.hpp"
#include "draforge/cpp/kube.hpp"
#include "draforge/cpp/objects.hpp"
#include "draforge/cpp/package.hpp"
#include "draforge/cpp/place.hpp"
#include "draforge/cpp/reconcile.hpp"
#include "draforge/cpp/result.hpp"
#include "draforge/cpp/sim.hpp"
#include "draforge/draforge.h"

namespace draforge {

// The library's version ("0.1.0") and the Kubernetes release it targets ("1.37").
inline std::string_view LibraryVersion() { return draforge_version(); }
inline std::string_view KubernetesVersion() { return draforge_kubernetes_version(); }

}  // namespace draforge

#endif  // DRAFORGE_DRAFORGE_HPP
