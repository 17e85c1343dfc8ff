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
  draforge_error_destroy(error);
  py::object exc = py::module_::import("draforge._errors").attr("from_c")(code, message, object, field);
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
                       bool prune_search) const {
    std::vector<const char*> ptrs;
    for (const auto& c : claims) ptrs.push_back(c.c_str());
    draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
    o.feature_gates = gates.c_str();
    o.unlock_locked_gates = unlock ? 1 : 0;
    o.node_labels_json = OrNull(labels_json);
    o.max_steps = max_steps;
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

  std::string explain(const std::string& claim, const std::optional<std::string>& node, const std::string& gates,
                      bool unlock, const std::optional<std::string>& labels_json) const {
    draforge_allocate_options o = DRAFORGE_ALLOCATE_OPTIONS_INIT;
    o.feature_gates = gates.c_str();
    o.unlock_locked_gates = unlock ? 1 : 0;
    o.node_labels_json = OrNull(labels_json);
    draforge_explanation* x = nullptr;
    draforge_error* e = nullptr;
    draforge_buffer b = {nullptr, 0};
    int rc;
    {
      py::gil_scoped_release nogil;
      rc = draforge_explain(&x, s_, claim.c_str(), OrNull(node), &o, &e);
      if (rc == DRAFORGE_OK) rc = draforge_explanation_json(&b, x, &e);
      draforge_explanation_destroy(x);
    }
    Check(rc, e);
    return Take(b);
  }

 private:
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

std::string FeatureGatesJson(const std::string& gates, bool unlock) {
  draforge_buffer b = {nullptr, 0};
  draforge_error* e = nullptr;
  const int rc = draforge_feature_gates_json(&b, gates.c_str(), unlock ? 1 : 0, &e);
  Check(rc, e);
  return Take(b);
}

}  // namespace

PYBIND11_MODULE(_draforge, m) {
  m.doc() = "Native layer of the draforge package (the C ABI). Use the draforge package instead.";
  m.def("version", [] { return std::string(draforge_version()); }, "The library's version string.");
  m.def("header_version", [] { return std::string(DRAFORGE_VERSION_STRING); },
        "The version of the header the module was compiled with.");
  m.def("kubernetes_version", [] { return std::string(draforge_kubernetes_version()); });
  m.attr("INVENTORY_ANY") = DRAFORGE_INVENTORY_ANY;
  m.def("feature_gates_json", &FeatureGatesJson, py::arg("gates"), py::arg("unlock"));
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
      .def("devices_json", &Snapshot::devices_json, py::arg("driver"), py::arg("pool"), py::arg("node"),
           py::arg("allocated"), py::arg("offset"), py::arg("limit"))
      .def("claims_json", &Snapshot::claims_json, py::arg("namespace"), py::arg("state"))
      .def("inventory_graph_json", &Snapshot::inventory_graph_json, py::arg("namespace"), py::arg("node"),
           py::arg("driver"), py::arg("all_devices"))
      .def("diagnostics_json", &Snapshot::diagnostics_json, py::arg("namespace"))
      .def("claim_diagnosis_json", &Snapshot::claim_diagnosis_json, py::arg("claim"))
      .def("changes_json", &Snapshot::changes_json, py::arg("before"))
      .def("allocate", &Snapshot::allocate, py::arg("claims"), py::arg("node"), py::arg("gates"), py::arg("unlock"),
           py::arg("labels_json"), py::arg("max_steps"), py::arg("prune_search"))
      .def("explain", &Snapshot::explain, py::arg("claim"), py::arg("node"), py::arg("gates"), py::arg("unlock"),
           py::arg("labels_json"));

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
}
