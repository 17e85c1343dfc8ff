// draforge._draforge: the thin native layer of the Python package, over the C ABI only
// (include/draforge/draforge.h). Every call releases the GIL around the C call; every C error is
// raised through draforge._errors.from_c, the package's one translation table from C codes to
// exceptions. Results cross as JSON text and are shaped into Python objects by the pure-Python layer.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "draforge/draforge.h"

namespace py = pybind11;

namespace {

// Raises the exception draforge._errors.from_c builds for `error` (or for `code` alone).
[[noreturn]] void Raise(int code, draforge_error* error) {
  const std::string message = error ? draforge_error_message(error) : "error " + std::to_string(code);
  const std::string object = error ? draforge_error_object(error) : "";
  const std::string field = error ? draforge_error_field(error) : "";
  const int status = draforge_kube_error_status_code(error);  // an API server's answer (DRAFORGE_EAPI)
  const std::string reason = draforge_kube_error_reason(error);
  draforge_error_destroy(error);
  py::object exc =
      py::module_::import("draforge._errors").attr("from_c")(code, message, object, field, status, reason);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

// Callers store the code first: in Check(f(&e), e) the second argument may be read before f runs.
void Check(int rc, draforge_error* error) {
  if (rc != DRAFORGE_OK) Raise(rc, error);
}

std::string Take(draforge_buffer& b) {
  std::string s(b.ptr ? b.ptr : "", b.size);
  draforge_buffer_dispose(&b);
  return s;
}

const char* OrNull(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

// Calls `fn(draforge_buffer*, draforge_error**)` without the GIL; its bytes, or the error raised.
template <typename Fn>
std::string BufferCall(Fn fn) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = fn(&b, &e);
  }
  Check(rc, e);
  return Take(b);
}

class Snapshot {
 public:
  explicit Snapshot(draforge_snapshot* s) : s_(s) {}
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  ~Snapshot() { draforge_snapshot_destroy(s_); }

  uint64_t generation() const { return draforge_snapshot_generation(s_); }
  size_t count(const std::string& kind) const { return draforge_snapshot_count(s_, kind.c_str()); }

  std::string objects_json(const std::optional<std::string>& kind) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_snapshot_objects_json(b, s_, OrNull(kind), e);
    });
  }

  std::string get_json(const std::string& kind, const std::string& ns, const std::string& name) const {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    const int rc = draforge_snapshot_get_json(&b, s_, kind.c_str(), ns.c_str(), name.c_str(), &e);
    Check(rc, e);
    return Take(b);
  }

  std::string graph_json(bool all_devices) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_snapshot_graph_json(b, s_, all_devices ? 1 : 0, e);
    });
  }

  std::string pools_json() const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) { return draforge_snapshot_pools_json(b, s_, e); });
  }

  // The whole result as JSON (draforge_allocation_result_json).
  std::string allocate(const std::vector<std::string>& claims, const std::string& node, const std::string& gates,
                       bool unlock, const std::optional<std::string>& labels_json, int64_t max_steps,
                       bool prune_search, const std::string& kubernetes_version) const {
    std::vector<const char*> ptrs;
    for (const auto& c : claims) ptrs.push_back(c.c_str());
    draforge_allocate_options o = AllocateOptions(gates, unlock, labels_json, max_steps, kubernetes_version);
    o.prune_search = prune_search ? 1 : 0;
    draforge_allocation_result* r = nullptr;
    draforge_error* e = nullptr;
    draforge_buffer b = {nullptr, 0};
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_allocate(&r, s_, ptrs.data(), ptrs.size(), node.c_str(), &o, &e);
      if (rc == DRAFORGE_OK) rc = draforge_allocation_result_json(&b, r, &e);
      draforge_allocation_result_destroy(r);
    }
    Check(rc, e);
    return Take(b);
  }

  const draforge_snapshot* get() const { return s_; }

  std::string resource_version() const { return draforge_snapshot_resource_version(s_); }

  // The inventory views (draforge/inventory.h): JSON in draforge-server's OpenAPI schemas.
  std::string summary_json() const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_summary_json(b, s_, e);
    });
  }
  std::string inventory_pools_json(const std::optional<std::string>& driver,
                                   const std::optional<std::string>& node) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_pools_json(b, s_, OrNull(driver), OrNull(node), e);
    });
  }
  // draforge_inventory_pool_status_json; "" / 0 / nullopt: unset.
  std::string pool_status_json(const std::string& driver, const std::optional<std::string>& pool_name, int64_t limit,
                               const std::optional<std::string>& default_partition_type_attribute,
                               const std::optional<std::string>& now) const {
    draforge_pool_status_options o = DRAFORGE_POOL_STATUS_OPTIONS_INIT;
    o.driver = driver.c_str();
    o.pool_name = OrNull(pool_name);
    o.limit = limit;
    o.default_partition_type_attribute = OrNull(default_partition_type_attribute);
    o.now = OrNull(now);
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_pool_status_json(b, s_, &o, e);
    });
  }
  // `allocated`: DRAFORGE_INVENTORY_ANY, 0 or 1.
  std::string devices_json(const std::optional<std::string>& driver, const std::optional<std::string>& pool,
                           const std::optional<std::string>& node, int allocated, size_t offset, size_t limit) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_devices_json(b, s_, OrNull(driver), OrNull(pool), OrNull(node), allocated, offset,
                                             limit, e);
    });
  }
  std::string claims_json(const std::optional<std::string>& ns, const std::optional<std::string>& state) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_claims_json(b, s_, OrNull(ns), OrNull(state), e);
    });
  }
  std::string inventory_graph_json(const std::optional<std::string>& ns, const std::optional<std::string>& node,
                                   const std::optional<std::string>& driver, bool all_devices) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_graph_json(b, s_, OrNull(ns), OrNull(node), OrNull(driver), all_devices ? 1 : 0, e);
    });
  }
  // draforge_snapshot_graph_render: `format` a draforge_graph_format (JSON, DOT or text).
  std::string render_graph(int format, const std::optional<std::string>& ns, const std::optional<std::string>& node,
                           const std::optional<std::string>& driver, bool all_devices) const {
    draforge_graph_options o = DRAFORGE_GRAPH_OPTIONS_INIT;
    o.format = static_cast<draforge_graph_format>(format);
    o.all_devices = all_devices ? 1 : 0;
    o.namespace_ = OrNull(ns);
    o.node = OrNull(node);
    o.driver = OrNull(driver);
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_snapshot_graph_render(b, s_, &o, e);
    });
  }
  std::string diagnostics_json(const std::optional<std::string>& ns) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_diagnostics_json(b, s_, OrNull(ns), e);
    });
  }
  std::string claim_diagnosis_json(const std::string& claim) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_claim_diagnosis_json(b, s_, claim.c_str(), e);
    });
  }
  // The ChangeEvent from `before` to this snapshot.
  std::string changes_json(const Snapshot& before) const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_inventory_changes_json(b, nullptr, before.s_, s_, e);
    });
  }

  // (explanation JSON, node groups JSON): draforge_explanation_json and _node_groups_json of one explain.
  std::pair<std::string, std::string> explain(const std::string& claim, const std::optional<std::string>& node,
                                              const std::string& gates, bool unlock,
                                              const std::optional<std::string>& labels_json,
                                              const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, labels_json, 0, kubernetes_version);
    draforge_explanation* x = nullptr;
    draforge_error* e = nullptr;
    draforge_buffer b = {nullptr, 0};
    draforge_buffer groups = {nullptr, 0};
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_explain(&x, s_, claim.c_str(), OrNull(node), &o, &e);
      if (rc == DRAFORGE_OK) rc = draforge_explanation_json(&b, x, &e);
      if (rc == DRAFORGE_OK) rc = draforge_explanation_node_groups_json(&groups, x, &e);
      draforge_explanation_destroy(x);
    }
    if (rc != DRAFORGE_OK) draforge_buffer_dispose(&b);
    Check(rc, e);
    std::string text = Take(b);
    return {std::move(text), Take(groups)};
  }

  // draforge_place_pod_json (place.h): on which nodes pod "ns/name" fits.
  std::string place_pod_json(const std::string& pod, const std::string& gates, bool unlock, int64_t max_steps,
                             const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_place_pod_json(b, s_, pod.c_str(), &o, e);
    });
  }
  // draforge_how_many_more_json: `kind` a draforge_prototype_kind, `cap` 0 for the default.
  std::string how_many_more_json(int kind, const std::string& name, int64_t cap, const std::string& gates, bool unlock,
                                 int64_t max_steps, const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_how_many_more_json(b, s_, kind, name.c_str(), cap, &o, e);
    });
  }

  // draforge_replay_json (place.h): the pending pods replayed in queue order on a copy of the
  // snapshot. `policy` "" for the default (first-fit); `explain` false for the allocator's reasons only.
  std::string replay_json(const std::string& policy, bool explain, const std::string& gates, bool unlock,
                          int64_t max_steps, const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    draforge_replay_options r = DRAFORGE_REPLAY_OPTIONS_INIT;
    r.policy = policy.c_str();
    r.explain = explain ? 1 : 0;
    return BufferCall([&](draforge_buffer* b, draforge_error** e) { return draforge_replay_json(b, s_, &r, &o, e); });
  }

  // draforge_gang_json (place.h): the members of PodGroup `group` placed all or nothing on a copy of
  // the snapshot. `workload_template` "" or "WORKLOAD/TEMPLATE".
  std::string gang_json(const std::string& group, const std::string& workload_template, const std::string& policy,
                        bool explain, const std::string& gates, bool unlock, int64_t max_steps,
                        const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    draforge_replay_options r = DRAFORGE_REPLAY_OPTIONS_INIT;
    r.policy = policy.c_str();
    r.explain = explain ? 1 : 0;
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_gang_json(b, s_, group.c_str(), workload_template.c_str(), &r, &o, e);
    });
  }

  // draforge_replay_after (place.h): the replay's JSON and the cluster after it.
  std::pair<Snapshot*, std::string> replay_after(const std::string& policy, bool explain, const std::string& gates,
                                                 bool unlock, int64_t max_steps,
                                                 const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    draforge_replay_options r = DRAFORGE_REPLAY_OPTIONS_INIT;
    r.policy = policy.c_str();
    r.explain = explain ? 1 : 0;
    draforge_snapshot* after = nullptr;
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_replay_after(&after, &b, s_, &r, &o, &e);
    }
    Check(rc, e);
    return {new Snapshot(after), Take(b)};
  }

  // draforge_fragmentation_json (place.h): fragmentation and, with `shape` (YAML/JSON objects) or
  // `shape_pod` ("ns/name"), the defrag advice. "" for none.
  std::string fragmentation_json(const std::string& shape, const std::string& shape_pod, int max_moves,
                                 int max_candidates, int64_t max_trials, const std::string& gates, bool unlock,
                                 int64_t max_steps, const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    draforge_defrag_options d = DRAFORGE_DEFRAG_OPTIONS_INIT;
    d.shape = shape.empty() ? nullptr : shape.c_str();
    d.shape_pod = shape_pod.empty() ? nullptr : shape_pod.c_str();
    d.max_moves = max_moves;
    d.max_candidates = max_candidates;
    d.max_trials = max_trials;
    return BufferCall(
        [&](draforge_buffer* b, draforge_error** e) { return draforge_fragmentation_json(b, s_, &d, &o, e); });
  }

  // draforge_whatif_preempt_json (place.h): the preemption what-if for pending pod `pod`.
  std::string whatif_preempt_json(const std::string& pod, bool dra_aware, bool explain, const std::string& gates,
                                  bool unlock, int64_t max_steps, const std::string& kubernetes_version) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, kubernetes_version);
    draforge_whatif_preempt_options p = DRAFORGE_WHATIF_PREEMPT_OPTIONS_INIT;
    p.dra_aware = dra_aware ? 1 : 0;
    p.explain = explain ? 1 : 0;
    return BufferCall(
        [&](draforge_buffer* b, draforge_error** e) { return draforge_whatif_preempt_json(b, s_, pod.c_str(), &p, &o, e); });
  }

  // draforge_package_capacity_json: `id` and `namespace_` "" for every package / "default".
  std::string package_capacity_json(const std::string& catalog, const std::string& id, const std::string& namespace_,
                                    bool quota, int64_t cap, const std::string& gates, bool unlock,
                                    int64_t max_steps) const {
    const draforge_allocate_options o = AllocateOptions(gates, unlock, std::nullopt, max_steps, std::string());
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_package_capacity_json(b, s_, catalog.data(), catalog.size(), id.c_str(), namespace_.c_str(),
                                            quota ? 1 : 0, cap, &o, e);
    });
  }
  std::string package_inventory_json() const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) { return draforge_package_inventory_json(b, s_, e); });
  }

  // draforge_whatif_edit (place.h): a copy of the snapshot with the edits of `edits_json` applied,
  // and the JSON array of what each edit did.
  std::pair<Snapshot*, std::string> whatif_edit(const std::string& edits_json) const {
    draforge_snapshot* out = nullptr;
    draforge_buffer changes = {nullptr, 0};
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_whatif_edit(&out, &changes, s_, edits_json.c_str(), &e);
    }
    Check(rc, e);
    return {new Snapshot(out), Take(changes)};
  }

 private:
  // The options the Python keywords features=, unlock_locked_gates=, node_labels=, max_steps= and
  // kubernetes_version= give; the strings are borrowed from the caller's arguments.
  static draforge_allocate_options AllocateOptions(const std::string& gates, bool unlock,
                                                   const std::optional<std::string>& labels_json, int64_t max_steps,
                                                   const std::string& kubernetes_version) {
    draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
    o.kubernetes_version = kubernetes_version.empty() ? nullptr : kubernetes_version.c_str();
    o.feature_gates = gates.c_str();
    o.unlock_locked_gates = unlock ? 1 : 0;
    o.node_labels_json = OrNull(labels_json);
    o.max_steps = max_steps;
    return o;
  }

  draforge_snapshot* s_;
};

class CdiSpecs {
 public:
  explicit CdiSpecs(draforge_cdi_specs* s) : s_(s) {}
  CdiSpecs(const CdiSpecs&) = delete;
  CdiSpecs& operator=(const CdiSpecs&) = delete;
  ~CdiSpecs() { draforge_cdi_specs_destroy(s_); }

  size_t count() const { return draforge_cdi_specs_count(s_); }
  std::string document(size_t index) const {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    const int rc = draforge_cdi_specs_document(&b, s_, index, &e);
    Check(rc, e);
    return Take(b);
  }
  std::string json() const {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    const int rc = draforge_cdi_specs_json(&b, s_, &e);
    Check(rc, e);
    return Take(b);
  }
  // The report JSON (draforge_cdi_specs_write).
  std::string write(const std::string& dir) const {
    draforge_buffer b = {nullptr, 0};
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_cdi_specs_write(s_, dir.c_str(), &b, &e);
    }
    Check(rc, e);
    return Take(b);
  }

 private:
  draforge_cdi_specs* s_;
};

CdiSpecs* CdiGenerate(const Snapshot& snapshot, const std::string& node, const std::string& drivers,
                      const std::string& max_version);

// (valid, problems JSON)
// draforge_package_validate_json; `snapshot` may be None.
std::string PackageValidate(const std::string& catalog, const Snapshot* snapshot) {
  return BufferCall([&](draforge_buffer* b, draforge_error** e) {
    return draforge_package_validate_json(b, catalog.data(), catalog.size(),
                                          snapshot == nullptr ? nullptr : snapshot->get(), e);
  });
}

// draforge_package_expand_json.
std::string PackageExpand(const std::string& catalog, const std::string& id, const std::string& name,
                          const std::string& namespace_, const std::string& image) {
  return BufferCall([&](draforge_buffer* b, draforge_error** e) {
    return draforge_package_expand_json(b, catalog.data(), catalog.size(), id.c_str(), name.c_str(),
                                        namespace_.c_str(), image.c_str(), e);
  });
}

std::pair<bool, std::string> CdiValidate(const std::string& text, bool yaml, bool compat,
                                         const std::string& max_version) {
  draforge_cdi_options o = DRAFORGE_CDI_OPTIONS_INIT;
  o.max_version = max_version.c_str();
  o.compat = compat ? 1 : 0;
  int valid = 0;
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = draforge_cdi_validate(&valid, &b, text.data(), text.size(), yaml ? DRAFORGE_FORMAT_YAML : DRAFORGE_FORMAT_JSON,
                               &o, &e);
  }
  Check(rc, e);
  return {valid != 0, Take(b)};
}

class Cluster {
 public:
  explicit Cluster(const std::string& default_namespace) {
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_create(&c_, default_namespace.c_str(), &e);
    Check(rc, e);
  }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  ~Cluster() { draforge_cluster_destroy(c_); }

  size_t apply(const std::string& text) {
    size_t n = 0;
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_cluster_apply(c_, text.data(), text.size(), &n, &e);
    }
    Check(rc, e);
    return n;
  }

  size_t apply_file(const std::string& path) {
    size_t n = 0;
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_cluster_apply_file(c_, path.c_str(), &n, &e);
    }
    Check(rc, e);
    return n;
  }

  draforge_cluster* get() const { return c_; }

  bool remove(const std::string& kind, const std::optional<std::string>& ns, const std::string& name) {
    int deleted = 0;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_delete(c_, kind.c_str(), OrNull(ns), name.c_str(), &deleted, &e);
    Check(rc, e);
    return deleted != 0;
  }

  Snapshot* snapshot() const {
    draforge_snapshot* s = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_snapshot(&s, c_, &e);
    Check(rc, e);
    return new Snapshot(s);
  }

 private:
  draforge_cluster* c_ = nullptr;
};

class Selector {
 public:
  Selector(const std::string& expression, const std::string& gates, bool check_cost, int64_t cost_limit)
      : expression_(expression) {
    draforge_cel_options o = DRAFORGE_CEL_OPTIONS_INIT;
    o.feature_gates = gates.c_str();
    o.check_estimated_cost = check_cost ? 1 : 0;
    o.cost_limit = cost_limit;
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_cel_selector_compile(&s_, expression.c_str(), &o, &e);
    }
    Check(rc, e);
  }
  Selector(const Selector&) = delete;
  Selector& operator=(const Selector&) = delete;
  ~Selector() { draforge_cel_selector_destroy(s_); }

  const std::string& expression() const { return expression_; }
  int64_t estimated_cost() const { return draforge_cel_selector_estimated_cost(s_); }

  // (matches, cost)
  std::pair<bool, int64_t> evaluate(const std::string& device_json) const {
    int matches = 0;
    int64_t cost = 0;
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_cel_selector_evaluate(s_, device_json.data(), device_json.size(), &matches, &cost, &e);
    }
    Check(rc, e);
    return {matches != 0, cost};
  }

 private:
  std::string expression_;
  draforge_cel_selector* s_ = nullptr;
};

CdiSpecs* CdiGenerate(const Snapshot& snapshot, const std::string& node, const std::string& drivers,
                      const std::string& max_version) {
  draforge_cdi_options o = DRAFORGE_CDI_OPTIONS_INIT;
  o.drivers = drivers.c_str();
  o.max_version = max_version.c_str();
  draforge_cdi_specs* specs = nullptr;
  draforge_error* e = nullptr;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = draforge_cdi_generate(&specs, snapshot.get(), node.c_str(), &o, &e);
  }
  Check(rc, e);
  return new CdiSpecs(specs);
}

std::string CelEvaluate(const std::string& expression, const std::string& gates, int64_t cost_limit) {
  draforge_cel_options o = DRAFORGE_CEL_OPTIONS_INIT;
  o.feature_gates = gates.c_str();
  o.cost_limit = cost_limit;
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  int rc;
  {
    py::gil_scoped_release nogil;
    rc = draforge_cel_evaluate(&b, expression.c_str(), &o, &e);
  }
  Check(rc, e);
  return Take(b);
}

std::string FeatureGatesJson(const std::string& gates, bool unlock, const std::string& kubernetes_version) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_kubernetes_feature_gates_json(&b, kubernetes_version.c_str(), gates.c_str(), unlock ? 1 : 0, &e);
  Check(rc, e);
  return Take(b);
}

std::string KubernetesVersionsJson() {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_kubernetes_versions_json(&b, &e);
  Check(rc, e);
  return Take(b);
}

// --- kube.h: a live cluster --------------------------------------------------------------------

// The configuration of draforge_kube_config_options, owned here while the C struct points into it.
// Python passes what it read from the process environment (the library reads none).
struct KubeConfig {
  std::optional<std::string> kubeconfig, kubeconfig_env, home, context, service_host, service_port;
  std::vector<std::string> environment;
  int64_t timeout_ms = 0;

  // Valid while this KubeConfig lives and is not changed.
  draforge_kube_config_options Options() {
    env_ptrs_.clear();
    for (const std::string& kv : environment) env_ptrs_.push_back(kv.c_str());
    draforge_kube_config_options o = DRAFORGE_KUBE_CONFIG_OPTIONS_INIT;
    o.kubeconfig = OrNull(kubeconfig);
    o.kubeconfig_env = OrNull(kubeconfig_env);
    o.home = OrNull(home);
    o.context = OrNull(context);
    o.environment = env_ptrs_.data();
    o.environment_count = env_ptrs_.size();
    o.service_host = OrNull(service_host);
    o.service_port = OrNull(service_port);
    o.user_agent = "draforge-python";
    o.timeout_ms = timeout_ms;
    return o;
  }

 private:
  std::vector<const char*> env_ptrs_;
};

std::string KubeConfigResolve(KubeConfig config) {
  const draforge_kube_config_options o = config.Options();
  return BufferCall([&](draforge_buffer* b, draforge_error** e) { return draforge_kube_config_resolve(b, &o, e); });
}

class KubeClient {
 public:
  explicit KubeClient(KubeConfig config) {
    const draforge_kube_config_options o = config.Options();
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;  // an exec credential plugin may run
      rc = draforge_kube_client_create(&c_, &o, &e);
    }
    Check(rc, e);
  }
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;
  ~KubeClient() {
    py::gil_scoped_release nogil;  // ends running watches
    draforge_kube_client_destroy(c_);
  }

  std::string server() const { return draforge_kube_client_server(c_); }
  std::string namespace_() const { return draforge_kube_client_namespace(c_); }
  std::string context() const { return draforge_kube_client_context(c_); }
  std::string server_version_json() {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_kube_client_server_version(b, c_, e);
    });
  }
  std::string list_cluster_state_json(const std::optional<std::string>& ns) {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_kube_list_cluster_state(b, c_, OrNull(ns), e);
    });
  }
  draforge_kube_client* get() const { return c_; }

 private:
  draforge_kube_client* c_ = nullptr;
};

// A running list + watch into a Cluster. on_change runs on the source's threads: it takes the GIL,
// and an exception it raises goes to sys.unraisablehook (there is no caller to raise it to).
class KubeSource {
 public:
  KubeSource(KubeClient& client, py::object cluster, const std::optional<std::string>& ns,
             const std::optional<std::string>& kinds, const std::optional<std::string>& custom_resources,
             py::object on_change)
      : cluster_(std::move(cluster)), on_change_(std::move(on_change)) {
    draforge_kube_source_options o = DRAFORGE_KUBE_SOURCE_OPTIONS_INIT;
    o.namespace_ = OrNull(ns);
    o.kinds = OrNull(kinds);
    o.custom_resources = OrNull(custom_resources);
    if (!on_change_.is_none()) {
      o.on_change = &KubeSource::OnChange;
      o.on_change_user_data = this;
    }
    draforge_cluster* target = cluster_.cast<Cluster&>().get();
    draforge_error* e = nullptr;
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_kube_source_start(&s_, client.get(), target, &o, &e);
    }
    Check(rc, e);
  }
  KubeSource(const KubeSource&) = delete;
  KubeSource& operator=(const KubeSource&) = delete;
  ~KubeSource() {
    // The source's threads may be waiting for the GIL in OnChange: release it while joining them.
    py::gil_scoped_release nogil;
    draforge_kube_source_destroy(s_);
  }

  bool synced() const { return draforge_kube_source_synced(s_) != 0; }
  bool wait_synced(int64_t timeout_ms) const {
    py::gil_scoped_release nogil;
    return draforge_kube_source_wait_synced(s_, timeout_ms) != 0;
  }
  // The latest failure as (code, message, object, field, status, reason), or None.
  py::object last_error() const {
    draforge_error* e = nullptr;
    const int rc = draforge_kube_source_last_error(s_, &e);
    if (rc == DRAFORGE_OK) return py::none();
    py::tuple t = py::make_tuple(rc, e ? draforge_error_message(e) : "", e ? draforge_error_object(e) : "",
                                 e ? draforge_error_field(e) : "", draforge_kube_error_status_code(e),
                                 draforge_kube_error_reason(e));
    draforge_error_destroy(e);
    return t;
  }
  std::string dra_version() const { return draforge_kube_source_dra_version(s_); }
  std::string stats_json() const {
    return BufferCall([&](draforge_buffer* b, draforge_error** e) {
      return draforge_kube_source_stats_json(b, s_, e);
    });
  }
  void stop() {
    py::gil_scoped_release nogil;
    draforge_kube_source_stop(s_);
  }

 private:
  static void OnChange(void* user_data, const char* kind) {
    py::gil_scoped_acquire gil;
    auto* self = static_cast<KubeSource*>(user_data);
    try {
      self->on_change_(std::string(kind));
    } catch (py::error_already_set& err) {
      err.discard_as_unraisable("draforge.kube.Source on_change");
    }
  }

  py::object cluster_;  // kept alive: the source fills it
  py::object on_change_;
  draforge_kube_source* s_ = nullptr;
};

}  // namespace

PYBIND11_MODULE(_draforge, m) {
  m.doc() = "Native layer of the draforge package (the C ABI). Use the draforge package instead.";
  m.def("version", [] { return std::string(draforge_version()); }, "The library's version string.");
  m.def("header_version", [] { return std::string(DRAFORGE_VERSION_STRING); },
        "The version of the header the module was compiled with.");
  m.def("kubernetes_version", [] { return std::string(draforge_kubernetes_version()); });
  m.attr("INVENTORY_ANY") = DRAFORGE_INVENTORY_ANY;
  m.attr("PROTOTYPE_CLAIM") = static_cast<int>(DRAFORGE_PROTOTYPE_CLAIM);
  m.attr("PROTOTYPE_TEMPLATE") = static_cast<int>(DRAFORGE_PROTOTYPE_TEMPLATE);
  m.attr("PROTOTYPE_POD") = static_cast<int>(DRAFORGE_PROTOTYPE_POD);
  m.attr("GRAPH_FORMATS") = py::dict(py::arg("json") = static_cast<int>(DRAFORGE_GRAPH_JSON),
                                     py::arg("dot") = static_cast<int>(DRAFORGE_GRAPH_DOT),
                                     py::arg("text") = static_cast<int>(DRAFORGE_GRAPH_TEXT));
  m.def("feature_gates_json", &FeatureGatesJson, py::arg("gates"), py::arg("unlock"), py::arg("kubernetes_version"));
  m.def("kubernetes_versions_json", &KubernetesVersionsJson);
  m.def("cel_evaluate", &CelEvaluate, py::arg("expression"), py::arg("gates"), py::arg("cost_limit"));

  py::class_<Snapshot>(m, "Snapshot")
      .def_property_readonly("generation", &Snapshot::generation)
      .def("count", &Snapshot::count, py::arg("kind"))
      .def("objects_json", &Snapshot::objects_json, py::arg("kind"))
      .def("get_json", &Snapshot::get_json, py::arg("kind"), py::arg("namespace"), py::arg("name"))
      .def("graph_json", &Snapshot::graph_json, py::arg("all_devices"))
      .def("pools_json", &Snapshot::pools_json)
      .def_property_readonly("resource_version", &Snapshot::resource_version)
      .def("summary_json", &Snapshot::summary_json)
      .def("inventory_pools_json", &Snapshot::inventory_pools_json, py::arg("driver"), py::arg("node"))
      .def("pool_status_json", &Snapshot::pool_status_json, py::arg("driver"), py::arg("pool_name"),
           py::arg("limit"), py::arg("default_partition_type_attribute"), py::arg("now"))
      .def("devices_json", &Snapshot::devices_json, py::arg("driver"), py::arg("pool"), py::arg("node"),
           py::arg("allocated"), py::arg("offset"), py::arg("limit"))
      .def("claims_json", &Snapshot::claims_json, py::arg("namespace"), py::arg("state"))
      .def("inventory_graph_json", &Snapshot::inventory_graph_json, py::arg("namespace"), py::arg("node"),
           py::arg("driver"), py::arg("all_devices"))
      .def("render_graph", &Snapshot::render_graph, py::arg("format"), py::arg("namespace"), py::arg("node"),
           py::arg("driver"), py::arg("all_devices"))
      .def("diagnostics_json", &Snapshot::diagnostics_json, py::arg("namespace"))
      .def("claim_diagnosis_json", &Snapshot::claim_diagnosis_json, py::arg("claim"))
      .def("changes_json", &Snapshot::changes_json, py::arg("before"))
      .def("allocate", &Snapshot::allocate, py::arg("claims"), py::arg("node"), py::arg("gates"), py::arg("unlock"),
           py::arg("labels_json"), py::arg("max_steps"), py::arg("prune_search"), py::arg("kubernetes_version"))
      .def("explain", &Snapshot::explain, py::arg("claim"), py::arg("node"), py::arg("gates"), py::arg("unlock"),
           py::arg("labels_json"), py::arg("kubernetes_version"))
      .def("place_pod_json", &Snapshot::place_pod_json, py::arg("pod"), py::arg("gates"), py::arg("unlock"),
           py::arg("max_steps"), py::arg("kubernetes_version"))
      .def("how_many_more_json", &Snapshot::how_many_more_json, py::arg("kind"), py::arg("name"), py::arg("cap"),
           py::arg("gates"), py::arg("unlock"), py::arg("max_steps"), py::arg("kubernetes_version"))
      .def("replay_json", &Snapshot::replay_json, py::arg("policy"), py::arg("explain"), py::arg("gates"),
           py::arg("unlock"), py::arg("max_steps"), py::arg("kubernetes_version"))
      .def("gang_json", &Snapshot::gang_json, py::arg("group"), py::arg("workload_template"), py::arg("policy"),
           py::arg("explain"), py::arg("gates"), py::arg("unlock"), py::arg("max_steps"),
           py::arg("kubernetes_version"))
      .def("replay_after", &Snapshot::replay_after, py::arg("policy"), py::arg("explain"), py::arg("gates"),
           py::arg("unlock"), py::arg("max_steps"), py::arg("kubernetes_version"),
           py::return_value_policy::take_ownership)
      .def("fragmentation_json", &Snapshot::fragmentation_json, py::arg("shape"), py::arg("shape_pod"),
           py::arg("max_moves"), py::arg("max_candidates"), py::arg("max_trials"), py::arg("gates"),
           py::arg("unlock"), py::arg("max_steps"), py::arg("kubernetes_version"))
      .def("whatif_preempt_json", &Snapshot::whatif_preempt_json, py::arg("pod"), py::arg("dra_aware"),
           py::arg("explain"), py::arg("gates"), py::arg("unlock"), py::arg("max_steps"),
           py::arg("kubernetes_version"))
      .def("package_capacity_json", &Snapshot::package_capacity_json, py::arg("catalog"), py::arg("id"),
           py::arg("namespace"), py::arg("quota"), py::arg("cap"), py::arg("gates"), py::arg("unlock"),
           py::arg("max_steps"))
      .def("package_inventory_json", &Snapshot::package_inventory_json)
      .def("whatif_edit", &Snapshot::whatif_edit, py::arg("edits_json"), py::return_value_policy::take_ownership);
  m.def("package_validate_json", &PackageValidate, py::arg("catalog"), py::arg("snapshot").none(true));
  m.def("package_expand_json", &PackageExpand, py::arg("catalog"), py::arg("id"), py::arg("name"),
        py::arg("namespace"), py::arg("image"));

  py::class_<CdiSpecs>(m, "CdiSpecs")
      .def("count", &CdiSpecs::count)
      .def("document", &CdiSpecs::document, py::arg("index"))
      .def("json", &CdiSpecs::json)
      .def("write", &CdiSpecs::write, py::arg("dir"));
  m.def("cdi_generate", &CdiGenerate, py::arg("snapshot"), py::arg("node"), py::arg("drivers"),
        py::arg("max_version"), py::return_value_policy::take_ownership);
  m.def("cdi_validate", &CdiValidate, py::arg("text"), py::arg("yaml"), py::arg("compat"), py::arg("max_version"));

  py::class_<Cluster>(m, "Cluster")
      .def(py::init<const std::string&>(), py::arg("default_namespace"))
      .def("apply", &Cluster::apply, py::arg("text"))
      .def("apply_file", &Cluster::apply_file, py::arg("path"))
      .def("delete", &Cluster::remove, py::arg("kind"), py::arg("namespace"), py::arg("name"))
      .def("snapshot", &Cluster::snapshot, py::return_value_policy::take_ownership);

  py::class_<Selector>(m, "Selector")
      .def(py::init<const std::string&, const std::string&, bool, int64_t>(), py::arg("expression"), py::arg("gates"),
           py::arg("check_cost"), py::arg("cost_limit"))
      .def_property_readonly("expression", &Selector::expression)
      .def_property_readonly("estimated_cost", &Selector::estimated_cost)
      .def("evaluate", &Selector::evaluate, py::arg("device_json"));

  py::class_<KubeConfig>(m, "KubeConfig")
      .def(py::init<>())
      .def_readwrite("kubeconfig", &KubeConfig::kubeconfig)
      .def_readwrite("kubeconfig_env", &KubeConfig::kubeconfig_env)
      .def_readwrite("home", &KubeConfig::home)
      .def_readwrite("context", &KubeConfig::context)
      .def_readwrite("service_host", &KubeConfig::service_host)
      .def_readwrite("service_port", &KubeConfig::service_port)
      .def_readwrite("environment", &KubeConfig::environment)
      .def_readwrite("timeout_ms", &KubeConfig::timeout_ms);
  m.def("kube_config_resolve", &KubeConfigResolve, py::arg("config"));

  py::class_<KubeClient>(m, "KubeClient")
      .def(py::init<KubeConfig>(), py::arg("config"))
      .def_property_readonly("server", &KubeClient::server)
      .def_property_readonly("namespace", &KubeClient::namespace_)
      .def_property_readonly("context", &KubeClient::context)
      .def("server_version_json", &KubeClient::server_version_json)
      .def("list_cluster_state_json", &KubeClient::list_cluster_state_json, py::arg("namespace"));

  py::class_<KubeSource>(m, "KubeSource")
      .def(py::init<KubeClient&, py::object, const std::optional<std::string>&, const std::optional<std::string>&,
                    const std::optional<std::string>&, py::object>(),
           py::arg("client"), py::arg("cluster"), py::arg("namespace"), py::arg("kinds"),
           py::arg("custom_resources"), py::arg("on_change"))
      .def_property_readonly("synced", &KubeSource::synced)
      .def("wait_synced", &KubeSource::wait_synced, py::arg("timeout_ms"))
      .def("last_error", &KubeSource::last_error)
      .def_property_readonly("dra_version", &KubeSource::dra_version)
      .def("stats_json", &KubeSource::stats_json)
      .def("stop", &KubeSource::stop);
}
