// DRAForge C++ API: the object store (Cluster) and its immutable snapshots (Snapshot).
#ifndef DRAFORGE_CPP_CLUSTER_HPP
#define DRAFORGE_CPP_CLUSTER_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "draforge/cluster.h"
#include "draforge/cpp/objects.hpp"
#include "draforge/cpp/result.hpp"

namespace draforge {

// An immutable view of a Cluster. Copies share the snapshot (cheap); any number of threads may
// read one at once; it stays valid after its Cluster is gone.
class Snapshot {
 public:
  uint64_t generation() const noexcept { return draforge_snapshot_generation(p_.get()); }
  // The resourceVersion of the last change applied ("" when none carried one).
  std::string resource_version() const { return draforge_snapshot_resource_version(p_.get()); }
  // The number of stored objects of `kind` (kubectl spelling); 0 for an unknown kind.
  size_t count(std::string_view kind) const {
    detail::CString k(kind);
    return draforge_snapshot_count(p_.get(), k.get());
  }
  // Every object of `kind` ("": every kind) as a JSON array of resource.k8s.io/v1 (core/v1) objects.
  Result<std::string> ObjectsJson(std::string_view kind = {}) const {
    detail::CString k(kind);
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_snapshot_objects_json(out, p_.get(), k.or_null(), e);
    });
  }
  // One object as JSON; ENOTFOUND when it is not stored.
  Result<std::string> GetJson(std::string_view kind, std::string_view namespace_, std::string_view name) const {
    detail::CString k(kind), ns(namespace_), n(name);
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_snapshot_get_json(out, p_.get(), k.get(), ns.or_null(), n.get(), e);
    });
  }
  // The relationship graph as JSON (docs/c-api.md).
  Result<std::string> GraphJson(bool all_devices = false) const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_snapshot_graph_json(out, p_.get(), all_devices ? 1 : 0, e);
    });
  }
  // The graph filtered by namespace, node and driver ("": no filter), as JSON, DOT or a text tree
  // (draforge_snapshot_graph_render).
  struct GraphQuery {
    draforge_graph_format format = DRAFORGE_GRAPH_JSON;
    bool all_devices = true;
    std::string namespace_, node, driver;
  };
  Result<std::string> RenderGraph(const GraphQuery& query) const {
    draforge_graph_options o = DRAFORGE_GRAPH_OPTIONS_INIT;
    o.format = query.format;
    o.all_devices = query.all_devices ? 1 : 0;
    o.namespace_ = query.namespace_.c_str();
    o.node = query.node.c_str();
    o.driver = query.driver.c_str();
    return detail::BufferCall(
        [&](draforge_buffer* out, draforge_error** e) { return draforge_snapshot_graph_render(out, p_.get(), &o, e); });
  }
  // Deprecated schema (see draforge_snapshot_pools_json); prefer the inventory calls.
  Result<std::string> PoolsJson() const {
    return detail::BufferCall([&](draforge_buffer* out, draforge_error** e) {
      return draforge_snapshot_pools_json(out, p_.get(), e);
    });
  }

  const draforge_snapshot* c_handle() const noexcept { return p_.get(); }
  // Adopts a snapshot handle returned by a C call (takes ownership).
  static Snapshot Adopt(draforge_snapshot* raw) { return Snapshot(raw); }

 private:
  explicit Snapshot(draforge_snapshot* p) : p_(p, draforge_snapshot_destroy) {}
  std::shared_ptr<draforge_snapshot> p_;
};

// A mutable object store. Movable, not copyable. Every call may run concurrently with any other.
class Cluster {
 public:
  // An empty store; namespaced objects without a namespace get `default_namespace` ("": "default").
  static Result<Cluster> Create(std::string_view default_namespace = {}) {
    detail::CString ns(default_namespace);
    draforge_cluster* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_create(&raw, ns.or_null(), &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return Cluster(raw);
  }

  // Decodes JSON or YAML text and adds or updates every object, all or nothing; the number read.
  Result<size_t> Apply(std::string_view data) {
    size_t n = 0;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_apply(p_.get(), data.data(), data.size(), &n, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return n;
  }
  // The same for a file, or every .yaml/.yml/.json file of a directory (sorted, not recursive).
  Result<size_t> ApplyFile(std::string_view path) {
    detail::CString p(path);
    size_t n = 0;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_apply_file(p_.get(), p.get(), &n, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return n;
  }
  Result<void> ApplyObjects(const Objects& objects) {
    return detail::VoidCall([&](draforge_error** e) {
      return draforge_cluster_apply_objects(p_.get(), objects.c_handle(), e);
    });
  }
  // Deletes one object; true when one was stored.
  Result<bool> Delete(std::string_view kind, std::string_view namespace_, std::string_view name) {
    detail::CString k(kind), ns(namespace_), n(name);
    int deleted = 0;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_delete(p_.get(), k.get(), ns.or_null(), n.get(), &deleted, &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return deleted != 0;
  }
  Result<Snapshot> snapshot() const {
    draforge_snapshot* raw = nullptr;
    draforge_error* e = nullptr;
    const int rc = draforge_cluster_snapshot(&raw, p_.get(), &e);
    if (rc != DRAFORGE_OK) return detail::TakeError(rc, e);
    return Snapshot::Adopt(raw);
  }

  draforge_cluster* c_handle() const noexcept { return p_.get(); }

 private:
  explicit Cluster(draforge_cluster* p) : p_(p) {}
  std::unique_ptr<draforge_cluster, detail::HandleDeleter<draforge_cluster, draforge_cluster_destroy>> p_;
};

}  // namespace draforge

#endif  // DRAFORGE_CPP_CLUSTER_HPP
