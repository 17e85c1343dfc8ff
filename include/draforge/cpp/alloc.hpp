// DRAForge C++ API: the structured allocator and explain.
#ifndef DRAFORGE_CPP_ALLOC_HPP
#define DRAFORGE_CPP_ALLOC_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "draforge/alloc.h"
#include "draforge/cpp/cluster.hpp"
#include "draforge/cpp/result.hpp"

namespace draforge {

// Options of Allocate() and Explain(); the defaults are Kubernetes 1.37's.
struct AllocateOptions {
  std::string feature_gates;     // "DRAConsumableCapacity=false,..."; "": the defaults
  bool unlock_locked_gates = false;
  std::string node_labels_json;  // "": the Node object's labels from the snapshot
  int64_t max_steps = 0;         // 0: no limit
  bool prune_search = true;
  std::string kubernetes_version;  // "1.34".."1.37"; "": 1.37
};

namespace detail {
// The C options of `o`; the strings are borrowed from `o`.
inline draforge_allocate_options COptions(const AllocateOptions& o) {
  draforge_allocate_options c = DRAFORGE_ALLOCATE_OPTIONS_INIT;
  c.feature_gates = o.feature_gates.empty() ? nullptr : o.feature_gates.c_str();
  c.unlock_locked_gates = o.unlock_locked_gates ? 1 : 0;
  c.node_labels_json = o.node_labels_json.empty() ? nullptr : o.node_labels_json.c_str();
  c.max_steps = o.max_steps;
  c.prune_search = o.prune_search ? 1 : 0;
  c.kubernetes_version = o.kubernetes_version.empty() ? nullptr : o.kubernetes_version.c_str();
  return c;
}
}  // namespace detail

// The effective feature gates as JSON ({"DRAAdminAccess":true,...}).
inline Result<std::string> FeatureGatesJson(std::string_view gates, bool unlock_locked_gates = false) {
  detail::CString g(gates);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_feature_gates_json(out, g.or_null(), unlock_locked_gates ? 1 : 0, e);
  });
}

// The effective feature gates of `kubernetes_version` ("": 1.37) as JSON.
inline Result<std::string> KubernetesFeatureGatesJson(std::string_view kubernetes_version, std::string_view gates,
                                                      bool unlock_locked_gates = false) {
  detail::CString v(kubernetes_version);
  detail::CString g(gates);
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
    return draforge_kubernetes_feature_gates_json(out, v.or_null(), g.or_null(), unlock_locked_gates ? 1 : 0, e);
  });
}

// The supported Kubernetes versions as JSON (draforge_kubernetes_versions_json).
inline Result<std::string> KubernetesVersionsJson() {
  return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) { return draforge_kubernetes_versions_json(out, e); });
}

// The result of Allocate(): allocated or unschedulable (not an error). Immutable.
class AllocationResult {
 public:
  bool allocated() const noexcept {
    return draforge_allocation_result_outcome(p_.get()) == DRAFORGE_OUTCOME_ALLOCATED;
  }
  size_t claim_count() const noexcept { return draforge_allocation_result_claim_count(p_.get()); }
  std::string_view claim(size_t i) const { return Str(draforge_allocation_result_claim(p_.get(), i)); }
  // status.allocation of claim `i` as resource.k8s.io/v1 JSON.
  Result<std::string> AllocationJson(size_t i) const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_allocation_result_allocation_json(out, p_.get(), i, e);
    });
  }
  std::vector<std::string> reasons() const {
    std::vector<std::string> out;
    const size_t n = draforge_allocation_result_reason_count(p_.get());
    for (size_t i = 0; i < n; ++i) out.emplace_back(Str(draforge_allocation_result_reason(p_.get(), i)));
    return out;
  }
  int64_t search_steps() const noexcept { return draforge_allocation_result_search_steps(p_.get()); }
  Result<std::string> Json() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_allocation_result_json(out, p_.get(), e);
    });
  }

 private:
  friend Result<AllocationResult> Allocate(const Snapshot&, const std::vector<std::string>&, std::string_view,
                                           const AllocateOptions&);
  explicit AllocationResult(draforge_allocation_result* p) : p_(p, draforge_allocation_result_destroy) {}
  static std::string_view Str(const char* s) { return s != nullptr ? std::string_view(s) : std::string_view(); }
  std::shared_ptr<draforge_allocation_result> p_;
};

// Allocates `claims` ("namespace/name") together on `node`, as kube-scheduler does for one pod.
inline Result<AllocationResult> Allocate(const Snapshot& snapshot, const std::vector<std::string>& claims,
                                         std::string_view node, const AllocateOptions& options = {}) {
  std::vector<const char*> refs;
  refs.reserve(claims.size());
  for (const std::string& c : claims) refs.push_back(c.c_str());
  detail::CString n(node);
  const draforge_allocate_options c = detail::COptions(options);
  draforge_allocation_result* raw = nullptr;
  draforge_error* e = nullptr;
  const int rc = draforge_allocate(&raw, snapshot.c_handle(), refs.data(), refs.size(), n.get(), &c, &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return AllocationResult(raw);
}

// Why a claim is pending (per request, the funnel from every device to those usable on the node).
class Explanation {
 public:
  std::string_view summary() const {
    const char* s = draforge_explanation_summary(p_.get());
    return s != nullptr ? std::string_view(s) : std::string_view();
  }
  Result<std::string> Json() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_explanation_json(out, p_.get(), e);
    });
  }
  // Without a node: the nodes that do not fit grouped by reason, [{"reason","nodes"}].
  Result<std::string> NodeGroupsJson() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_explanation_node_groups_json(out, p_.get(), e);
    });
  }

 private:
  friend Result<Explanation> Explain(const Snapshot&, std::string_view, std::string_view, const AllocateOptions&);
  explicit Explanation(draforge_explanation* p) : p_(p, draforge_explanation_destroy) {}
  std::shared_ptr<draforge_explanation> p_;
};

// Explains `claim` on `node` ("": every node's verdict, no node step).
inline Result<Explanation> Explain(const Snapshot& snapshot, std::string_view claim, std::string_view node = {},
                                   const AllocateOptions& options = {}) {
  detail::CString c(claim), n(node);
  const draforge_allocate_options o = detail::COptions(options);
  draforge_explanation* raw = nullptr;
  draforge_error* e = nullptr;
  const int rc = draforge_explain(&raw, snapshot.c_handle(), c.get(), n.or_null(), &o, &e);
  if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
  return Explanation(raw);
}

}  // namespace draforge

#endif  // DRAFORGE_CPP_ALLOC_HPP
