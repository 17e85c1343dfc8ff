// The Container Device Interface (CDI) spec model, up to cdiVersion 1.1.0.
//
// Field names and JSON keys follow the reference Go types (cncf-tags/container-device-interface
// specs-go/config.go), which are the source of truth where SPEC.md's examples disagree
// (`additionalGids`, `schemata`, an object for the top-level `containerEdits`). Presence is kept
// where the reference library's minimum-version rule or a reader can tell the difference (an
// `intelRdt` object, a `schemata` list, pointer fields such as `uid`); elsewhere an empty value is
// "not set" and is not written, as Go's `omitempty` does.
#ifndef DRAFORGE_CDI_SPEC_H_
#define DRAFORGE_CDI_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draforge::cdi {

// containerEdits.deviceNodes[]: a device node to create in the container.
struct DeviceNode {
  std::string path;       // container path; required
  std::string host_path;  // since 0.5.0; defaults to `path` on the host
  std::string type;       // "", "b", "c", "u" or "p"
  std::optional<int64_t> major;
  std::optional<int64_t> minor;
  std::optional<uint32_t> file_mode;  // os.FileMode bits, decimal in JSON (384 = 0600)
  std::string permissions;            // cgroup access: letters of "rwm"
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  friend bool operator==(const DeviceNode&, const DeviceNode&) = default;
};

// containerEdits.mounts[]: a mount added to the container.
struct Mount {
  std::string host_path;
  std::string container_path;
  std::vector<std::string> options;
  std::string type;  // since 0.4.0
  friend bool operator==(const Mount&, const Mount&) = default;
};

// containerEdits.hooks[]: an OCI hook.
struct Hook {
  std::string hook_name;  // prestart, createRuntime, createContainer, startContainer, poststart, poststop
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::optional<int64_t> timeout;
  friend bool operator==(const Hook&, const Hook&) = default;
};

// containerEdits.intelRdt (since 0.7.0): resctrl class of service.
struct IntelRdt {
  std::string clos_id;
  std::string l3_cache_schema;
  std::string mem_bw_schema;
  // 1.1.0; presence (even an empty list) requires 1.1.0, as in the reference library.
  std::optional<std::vector<std::string>> schemata;
  bool enable_monitoring = false;  // 1.1.0
  // 0.7.0 .. 1.0.x only: removed in 1.1.0, where readers reject them as unknown fields.
  std::optional<bool> enable_cmt;
  std::optional<bool> enable_mbm;
  friend bool operator==(const IntelRdt&, const IntelRdt&) = default;
};

// containerEdits.netDevices[] (since 1.1.0): a host network interface moved into the container.
struct NetDevice {
  std::string host_interface_name;
  std::string name;
  friend bool operator==(const NetDevice&, const NetDevice&) = default;
};

// The edits CDI applies to a container's OCI spec; the same type at spec and device level.
struct ContainerEdits {
  std::vector<std::string> env;  // "NAME=VALUE"
  std::vector<DeviceNode> device_nodes;
  std::vector<Hook> hooks;
  std::vector<Mount> mounts;
  std::optional<IntelRdt> intel_rdt;     // since 0.7.0
  std::vector<uint32_t> additional_gids;  // since 0.7.0
  std::vector<NetDevice> net_devices;     // since 1.1.0

  // Whether no edit is set (the reference library refuses a device whose edits are empty).
  bool empty() const {
    return env.empty() && device_nodes.empty() && hooks.empty() && mounts.empty() && !intel_rdt &&
           additional_gids.empty() && net_devices.empty();
  }
  friend bool operator==(const ContainerEdits&, const ContainerEdits&) = default;
};

// devices[]: one CDI device, requested as `<kind>=<name>`.
struct Device {
  std::string name;
  std::map<std::string, std::string> annotations;  // since 0.6.0
  ContainerEdits container_edits;
  friend bool operator==(const Device&, const Device&) = default;
};

// One CDI spec document.
struct Spec {
  std::string version;  // "cdiVersion", e.g. "0.5.0"
  std::string kind;     // "vendor/class"
  std::map<std::string, std::string> annotations;  // since 0.6.0
  std::vector<Device> devices;
  ContainerEdits container_edits;  // applied once when any device of the spec is injected
  friend bool operator==(const Spec&, const Spec&) = default;
};

// The two halves of a kind, split at the first '/' as the reference parser does. `vendor` is empty
// when `kind` has no '/'.
struct Kind {
  std::string_view vendor;
  std::string_view cdi_class;
};
// Views into `kind`.
Kind SplitKind(std::string_view kind);

// The fully qualified CDI device name a runtime is given: "<vendor>/<class>=<name>".
std::string QualifiedDeviceName(std::string_view kind, std::string_view device_name);

}  // namespace draforge::cdi

#endif  // DRAFORGE_CDI_SPEC_H_
