#include "cdi/spec_codec.h"

#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "api/json_parse.h"
#include "api/yaml.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace draforge::cdi {
namespace {

using rapidjson::Value;

std::string TypeName(const Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsNumber()) return v.IsDouble() ? "number" : "integer";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "array";
  return "object";
}

std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

class Decoder {
 public:
  Decoder(const DecodeOptions& options, std::vector<Problem>* problems) : options_(options), problems_(problems) {}

  void Add(const std::string& path, std::string message) { problems_->push_back({path, std::move(message)}); }

  // Iterates the members of an object, reporting duplicates, unknown keys and (strict) nulls. `f`
  // returns false for an unknown key. Returns false (after reporting) when `v` is not an object.
  template <typename F>
  bool Object(const Value& v, const std::string& path, F f) {
    if (!v.IsObject()) {
      Add(path, "expected object, got " + TypeName(v));
      return false;
    }
    std::set<std::string_view> seen;
    for (const auto& m : v.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const std::string child = absl::StrCat(path, ".", AV(key));
      if (!seen.insert(key).second) {
        Add(child, "duplicate field " + Quoted(key));
        continue;
      }
      if (m.value.IsNull()) {
        // Go leaves a field unset for null; a writer should not produce it.
        if (options_.strict) Add(child, "must not be null");
        if (!Known(key, f)) Add(child, "unknown field " + Quoted(key));
        continue;
      }
      if (!f(key, m.value, child)) Add(child, "unknown field " + Quoted(key));
    }
    return true;
  }

  bool String(const Value& v, const std::string& path, std::string* out) {
    if (!v.IsString()) {
      Add(path, "expected string, got " + TypeName(v));
      return false;
    }
    out->assign(v.GetString(), v.GetStringLength());
    return true;
  }

  void Strings(const Value& v, const std::string& path, std::vector<std::string>* out) {
    if (!v.IsArray()) {
      Add(path, "expected array of strings, got " + TypeName(v));
      return;
    }
    size_t i = 0;
    for (const Value& item : v.GetArray()) {
      std::string s;
      if (String(item, absl::StrCat(path, "[", i, "]"), &s)) out->push_back(std::move(s));
      ++i;
    }
  }

  void Bool(const Value& v, const std::string& path, bool* out) {
    if (!v.IsBool()) {
      Add(path, "expected boolean, got " + TypeName(v));
      return;
    }
    *out = v.GetBool();
  }

  bool Int64(const Value& v, const std::string& path, int64_t* out) {
    if (!v.IsInt64()) {
      Add(path, v.IsNumber() && !v.IsDouble() ? "integer out of range for int64"
                                               : "expected integer, got " + TypeName(v));
      return false;
    }
    *out = v.GetInt64();
    return true;
  }

  bool Uint32(const Value& v, const std::string& path, uint32_t* out) {
    if (!v.IsUint()) {
      Add(path, v.IsNumber() && !v.IsDouble() ? "integer out of range for uint32 (0 to 4294967295)"
                                               : "expected integer, got " + TypeName(v));
      return false;
    }
    *out = v.GetUint();
    return true;
  }

  void Annotations(const Value& v, const std::string& path, std::map<std::string, std::string>* out) {
    if (!v.IsObject()) {
      Add(path, "expected object, got " + TypeName(v));
      return;
    }
    for (const auto& m : v.GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      const std::string child = absl::StrCat(path, "[", Quoted(key), "]");
      if (out->count(key) > 0) {
        Add(child, "duplicate key " + Quoted(key));
        continue;
      }
      std::string value;
      if (String(m.value, child, &value)) (*out)[key] = std::move(value);
    }
  }

  template <typename T, typename F>
  void List(const Value& v, const std::string& path, std::vector<T>* out, F each) {
    if (!v.IsArray()) {
      Add(path, "expected array, got " + TypeName(v));
      return;
    }
    size_t i = 0;
    for (const Value& item : v.GetArray()) {
      T t{};
      each(item, absl::StrCat(path, "[", i, "]"), &t);
      out->push_back(std::move(t));
      ++i;
    }
  }

  void DeviceNode(const Value& v, const std::string& path, cdi::DeviceNode* n) {
    bool has_path = false;
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "path") {
        has_path = true;
        if (!f.IsNull()) String(f, p, &n->path);
      } else if (k == "hostPath") {
        if (!f.IsNull()) String(f, p, &n->host_path);
      } else if (k == "type") {
        if (!f.IsNull()) String(f, p, &n->type);
      } else if (k == "major" || k == "minor") {
        int64_t x = 0;
        if (!f.IsNull() && Int64(f, p, &x)) (k == "major" ? n->major : n->minor) = x;
      } else if (k == "fileMode" || k == "uid" || k == "gid") {
        uint32_t x = 0;
        if (!f.IsNull() && Uint32(f, p, &x)) (k == "fileMode" ? n->file_mode : k == "uid" ? n->uid : n->gid) = x;
      } else if (k == "permissions") {
        if (!f.IsNull()) String(f, p, &n->permissions);
      } else {
        return false;
      }
      return true;
    });
    if (v.IsObject() && !has_path) Add(path, "missing required field \"path\"");
  }

  void Mount(const Value& v, const std::string& path, cdi::Mount* m) {
    bool has_host = false, has_container = false;
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "hostPath") {
        has_host = true;
        if (!f.IsNull()) String(f, p, &m->host_path);
      } else if (k == "containerPath") {
        has_container = true;
        if (!f.IsNull()) String(f, p, &m->container_path);
      } else if (k == "options") {
        if (!f.IsNull()) Strings(f, p, &m->options);
      } else if (k == "type") {
        if (!f.IsNull()) String(f, p, &m->type);
      } else {
        return false;
      }
      return true;
    });
    if (v.IsObject() && !has_host) Add(path, "missing required field \"hostPath\"");
    if (v.IsObject() && !has_container) Add(path, "missing required field \"containerPath\"");
  }

  void Hook(const Value& v, const std::string& path, cdi::Hook* h) {
    bool has_name = false, has_path = false;
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "hookName") {
        has_name = true;
        if (!f.IsNull()) String(f, p, &h->hook_name);
      } else if (k == "path") {
        has_path = true;
        if (!f.IsNull()) String(f, p, &h->path);
      } else if (k == "args") {
        if (!f.IsNull()) Strings(f, p, &h->args);
      } else if (k == "env") {
        if (!f.IsNull()) Strings(f, p, &h->env);
      } else if (k == "timeout") {
        int64_t x = 0;
        if (!f.IsNull() && Int64(f, p, &x)) h->timeout = x;
      } else {
        return false;
      }
      return true;
    });
    if (v.IsObject() && !has_name) Add(path, "missing required field \"hookName\"");
    if (v.IsObject() && !has_path) Add(path, "missing required field \"path\"");
  }

  void IntelRdt(const Value& v, const std::string& path, cdi::IntelRdt* r) {
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "closID") {
        if (!f.IsNull()) String(f, p, &r->clos_id);
      } else if (k == "l3CacheSchema") {
        if (!f.IsNull()) String(f, p, &r->l3_cache_schema);
      } else if (k == "memBwSchema") {
        if (!f.IsNull()) String(f, p, &r->mem_bw_schema);
      } else if (k == "schemata") {
        if (!f.IsNull()) {
          r->schemata.emplace();
          Strings(f, p, &*r->schemata);
        }
      } else if (k == "enableMonitoring") {
        if (!f.IsNull()) Bool(f, p, &r->enable_monitoring);
      } else if (k == "enableCMT" || k == "enableMBM") {
        bool b = false;
        if (!f.IsNull() && f.IsBool()) {
          b = f.GetBool();
          (k == "enableCMT" ? r->enable_cmt : r->enable_mbm) = b;
        } else if (!f.IsNull()) {
          Bool(f, p, &b);
        }
      } else {
        return false;
      }
      return true;
    });
  }

  void NetDevice(const Value& v, const std::string& path, cdi::NetDevice* n) {
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "hostInterfaceName") {
        if (!f.IsNull()) String(f, p, &n->host_interface_name);
      } else if (k == "name") {
        if (!f.IsNull()) String(f, p, &n->name);
      } else {
        return false;
      }
      return true;
    });
  }

  void Edits(const Value& v, const std::string& path, ContainerEdits* e) {
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (f.IsNull() && (k == "env" || k == "deviceNodes" || k == "hooks" || k == "mounts" || k == "intelRdt" ||
                         k == "additionalGids" || k == "netDevices")) {
        return true;
      }
      if (k == "env") {
        Strings(f, p, &e->env);
      } else if (k == "deviceNodes") {
        List(f, p, &e->device_nodes,
             [this](const Value& x, const std::string& xp, cdi::DeviceNode* n) { DeviceNode(x, xp, n); });
      } else if (k == "hooks") {
        List(f, p, &e->hooks, [this](const Value& x, const std::string& xp, cdi::Hook* h) { Hook(x, xp, h); });
      } else if (k == "mounts") {
        List(f, p, &e->mounts, [this](const Value& x, const std::string& xp, cdi::Mount* m) { Mount(x, xp, m); });
      } else if (k == "intelRdt") {
        e->intel_rdt.emplace();
        IntelRdt(f, p, &*e->intel_rdt);
      } else if (k == "additionalGids") {
        if (!f.IsArray()) {
          Add(p, "expected array of integers, got " + TypeName(f));
        } else {
          size_t i = 0;
          for (const Value& g : f.GetArray()) {
            uint32_t x = 0;
            if (Uint32(g, absl::StrCat(p, "[", i, "]"), &x)) e->additional_gids.push_back(x);
            ++i;
          }
        }
      } else if (k == "netDevices") {
        List(f, p, &e->net_devices,
             [this](const Value& x, const std::string& xp, cdi::NetDevice* n) { NetDevice(x, xp, n); });
      } else {
        return false;
      }
      return true;
    });
  }

  void Device(const Value& v, const std::string& path, cdi::Device* d) {
    bool has_name = false, has_edits = false;
    Object(v, path, [&](std::string_view k, const Value& f, const std::string& p) {
      if (k == "name") {
        has_name = true;
        if (!f.IsNull()) String(f, p, &d->name);
      } else if (k == "annotations") {
        if (!f.IsNull()) Annotations(f, p, &d->annotations);
      } else if (k == "containerEdits") {
        has_edits = !f.IsNull();
        if (!f.IsNull()) Edits(f, p, &d->container_edits);
      } else {
        return false;
      }
      return true;
    });
    if (v.IsObject() && !has_name) Add(path, "missing required field \"name\"");
    if (v.IsObject() && !has_edits) Add(path, "missing required field \"containerEdits\"");
  }

  void Spec(const Value& v, cdi::Spec* s) {
    bool has_version = false, has_kind = false, has_devices = false;
    if (!Object(v, "$", [&](std::string_view k, const Value& f, const std::string& p) {
          if (k == "cdiVersion") {
            has_version = !f.IsNull();
            if (!f.IsNull()) String(f, p, &s->version);
          } else if (k == "kind") {
            has_kind = !f.IsNull();
            if (!f.IsNull()) String(f, p, &s->kind);
          } else if (k == "annotations") {
            if (!f.IsNull()) Annotations(f, p, &s->annotations);
          } else if (k == "devices") {
            has_devices = !f.IsNull();
            if (!f.IsNull()) {
              List(f, p, &s->devices,
                   [this](const Value& x, const std::string& xp, cdi::Device* d) { Device(x, xp, d); });
            }
          } else if (k == "containerEdits") {
            if (!f.IsNull()) Edits(f, p, &s->container_edits);
          } else {
            return false;
          }
          return true;
        })) {
      return;
    }
    if (!has_version) Add("$", "missing required field \"cdiVersion\"");
    if (!has_kind) Add("$", "missing required field \"kind\"");
    if (!has_devices) Add("$", "missing required field \"devices\"");
  }

 private:
  // Whether `f` knows `key` (asked with a null value, which every handler skips).
  template <typename F>
  static bool Known(std::string_view key, F& f) {
    const Value null_value;
    return f(key, null_value, std::string());
  }

  const DecodeOptions& options_;
  std::vector<Problem>* problems_;
};

// ---- encoding ------------------------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Key(Writer& w, std::string_view k) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
void Str(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

void StrField(Writer& w, std::string_view k, const std::string& v) {
  if (v.empty()) return;
  Key(w, k);
  Str(w, v);
}

void StrList(Writer& w, std::string_view k, const std::vector<std::string>& v, bool even_empty = false) {
  if (v.empty() && !even_empty) return;
  Key(w, k);
  w.StartArray();
  for (const std::string& s : v) Str(w, s);
  w.EndArray();
}

void EncodeAnnotations(Writer& w, const std::map<std::string, std::string>& a) {
  if (a.empty()) return;
  Key(w, "annotations");
  w.StartObject();
  for (const auto& [k, v] : a) {
    Key(w, k);
    Str(w, v);
  }
  w.EndObject();
}

void EncodeEdits(Writer& w, const ContainerEdits& e) {
  w.StartObject();
  StrList(w, "env", e.env);
  if (!e.device_nodes.empty()) {
    Key(w, "deviceNodes");
    w.StartArray();
    for (const DeviceNode& n : e.device_nodes) {
      w.StartObject();
      Key(w, "path");
      Str(w, n.path);
      StrField(w, "hostPath", n.host_path);
      StrField(w, "type", n.type);
      if (n.major) {
        Key(w, "major");
        w.Int64(*n.major);
      }
      if (n.minor) {
        Key(w, "minor");
        w.Int64(*n.minor);
      }
      if (n.file_mode) {
        Key(w, "fileMode");
        w.Uint(*n.file_mode);
      }
      StrField(w, "permissions", n.permissions);
      if (n.uid) {
        Key(w, "uid");
        w.Uint(*n.uid);
      }
      if (n.gid) {
        Key(w, "gid");
        w.Uint(*n.gid);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (!e.hooks.empty()) {
    Key(w, "hooks");
    w.StartArray();
    for (const Hook& h : e.hooks) {
      w.StartObject();
      Key(w, "hookName");
      Str(w, h.hook_name);
      Key(w, "path");
      Str(w, h.path);
      StrList(w, "args", h.args);
      StrList(w, "env", h.env);
      if (h.timeout) {
        Key(w, "timeout");
        w.Int64(*h.timeout);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (!e.mounts.empty()) {
    Key(w, "mounts");
    w.StartArray();
    for (const Mount& m : e.mounts) {
      w.StartObject();
      Key(w, "hostPath");
      Str(w, m.host_path);
      Key(w, "containerPath");
      Str(w, m.container_path);
      StrList(w, "options", m.options);
      StrField(w, "type", m.type);
      w.EndObject();
    }
    w.EndArray();
  }
  if (e.intel_rdt) {
    const IntelRdt& r = *e.intel_rdt;
    Key(w, "intelRdt");
    w.StartObject();
    StrField(w, "closID", r.clos_id);
    StrField(w, "l3CacheSchema", r.l3_cache_schema);
    StrField(w, "memBwSchema", r.mem_bw_schema);
    if (r.schemata) StrList(w, "schemata", *r.schemata, /*even_empty=*/true);
    if (r.enable_monitoring) {
      Key(w, "enableMonitoring");
      w.Bool(true);
    }
    if (r.enable_cmt) {
      Key(w, "enableCMT");
      w.Bool(*r.enable_cmt);
    }
    if (r.enable_mbm) {
      Key(w, "enableMBM");
      w.Bool(*r.enable_mbm);
    }
    w.EndObject();
  }
  if (!e.additional_gids.empty()) {
    Key(w, "additionalGids");
    w.StartArray();
    for (uint32_t g : e.additional_gids) w.Uint(g);
    w.EndArray();
  }
  if (!e.net_devices.empty()) {
    Key(w, "netDevices");
    w.StartArray();
    for (const NetDevice& n : e.net_devices) {
      w.StartObject();
      Key(w, "hostInterfaceName");
      Str(w, n.host_interface_name);
      Key(w, "name");
      Str(w, n.name);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace

Format FormatForFileName(std::string_view file_name) {
  constexpr std::string_view kYamlExt = ".yaml";
  if (file_name.size() >= kYamlExt.size() && file_name.substr(file_name.size() - kYamlExt.size()) == kYamlExt) {
    return Format::kYaml;
  }
  return Format::kJson;
}

std::vector<Problem> DecodeSpec(std::string_view text, const DecodeOptions& options, Spec* spec) {
  std::vector<Problem> problems;
  *spec = Spec{};
  if (text.size() > options.max_bytes) {
    problems.push_back({"$", absl::StrCat("document is ", text.size(), " bytes, above the limit of ",
                                          options.max_bytes)});
    return problems;
  }
  rapidjson::Document doc;
  if (options.format == Format::kYaml) {
    auto docs = api::ParseYamlStream(text);
    if (!docs.ok()) {
      problems.push_back({"$", std::string(docs.status().message())});
      return problems;
    }
    if (docs->size() != 1) {
      problems.push_back({"$", absl::StrCat("expected exactly one YAML document, got ", docs->size())});
      return problems;
    }
    doc.Swap((*docs)[0].json);
  } else {
    bool blank = true;
    for (char c : text) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        blank = false;
        break;
      }
    }
    if (blank) {
      problems.push_back({"$", "empty document"});
      return problems;
    }
    // Iterative, with a depth cap: a deeply nested document must not exhaust the stack, here or in
    // the decoder's walk.
    api::JsonParseResult parsed =
        api::ParseJsonInto<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseFullPrecisionFlag>(doc, text);
    if (!parsed.ok()) {
      problems.push_back({"$", absl::StrCat("invalid JSON at byte ", parsed.offset, ": ", parsed.Message())});
      return problems;
    }
  }
  Decoder d(options, &problems);
  d.Spec(doc, spec);
  return problems;
}

absl::StatusOr<Spec> DecodeSpec(std::string_view text, const DecodeOptions& options) {
  Spec spec;
  std::vector<Problem> problems = DecodeSpec(text, options, &spec);
  if (!problems.empty()) return absl::InvalidArgumentError(FormatProblems(problems));
  return spec;
}

std::string EncodeSpec(const Spec& spec) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  Key(w, "cdiVersion");
  Str(w, spec.version);
  Key(w, "kind");
  Str(w, spec.kind);
  EncodeAnnotations(w, spec.annotations);
  Key(w, "devices");
  w.StartArray();
  for (const Device& d : spec.devices) {
    w.StartObject();
    Key(w, "name");
    Str(w, d.name);
    EncodeAnnotations(w, d.annotations);
    Key(w, "containerEdits");
    EncodeEdits(w, d.container_edits);
    w.EndObject();
  }
  w.EndArray();
  if (!spec.container_edits.empty()) {
    Key(w, "containerEdits");
    EncodeEdits(w, spec.container_edits);
  }
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  out.push_back('\n');
  return out;
}

}  // namespace draforge::cdi
