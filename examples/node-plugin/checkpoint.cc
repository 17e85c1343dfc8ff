#include "checkpoint.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::node_plugin {
namespace {

constexpr int kVersion = 1;

Error Invalid(const std::string& path, const std::string& problem) {
  return Error{DRAFORGE_EINVALID, "checkpoint " + path + ": " + problem};
}

// The string member `key` of `o` into `out`; false when it is missing or not a string.
bool GetString(const rapidjson::Value& o, const char* key, std::string* out) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return false;
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

bool GetStrings(const rapidjson::Value& o, const char* key, std::vector<std::string>* out) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsArray()) return false;
  for (const rapidjson::Value& v : it->value.GetArray()) {
    if (!v.IsString()) return false;
    out->emplace_back(v.GetString(), v.GetStringLength());
  }
  return true;
}

// The entry `e` into `out`; false with the first problem in `problem`.
bool DecodeEntry(const rapidjson::Value& e, CheckpointEntry* out, std::string* problem) {
  if (!e.IsObject()) {
    *problem = "is not an object";
    return false;
  }
  for (auto [key, field] : {std::pair<const char*, std::string*>{"namespace", &out->claim.namespace_},
                            {"name", &out->claim.name},
                            {"uid", &out->claim.uid},
                            {"driver", &out->driver},
                            {"fileName", &out->file_name},
                            {"document", &out->document}}) {
    if (!GetString(e, key, field)) {
      *problem = std::string(key) + " is missing or not a string";
      return false;
    }
  }
  if (out->claim.uid.empty() || out->file_name.empty()) {
    *problem = "uid and fileName must not be empty";
    return false;
  }
  auto devices = e.FindMember("devices");
  if (devices == e.MemberEnd() || !devices->value.IsArray()) {
    *problem = "devices is missing or not an array";
    return false;
  }
  for (const rapidjson::Value& d : devices->value.GetArray()) {
    PreparedDevice pd;
    if (!d.IsObject() || !GetStrings(d, "requests", &pd.request_names) || !GetString(d, "pool", &pd.pool_name) ||
        !GetString(d, "device", &pd.device_name) || !GetStrings(d, "cdiDeviceIDs", &pd.cdi_device_ids)) {
      *problem = "devices[" + std::to_string(out->devices.size()) +
                 "] needs requests, pool, device and cdiDeviceIDs";
      return false;
    }
    out->devices.push_back(std::move(pd));
  }
  return true;
}

template <typename Writer>
void WriteStrings(Writer& w, const std::vector<std::string>& v) {
  w.StartArray();
  for (const std::string& s : v) w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
}

template <typename Writer>
void WriteString(Writer& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

}  // namespace

Result<Checkpoint> Checkpoint::Load(std::string path) {
  Checkpoint cp(path);
  // A missing file is a node where nothing was prepared yet; anything else must be looked at.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return cp;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Invalid(path, "cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return Invalid(path, "cannot be read");
  rapidjson::Document d;
  d.Parse(text.str().c_str(), text.str().size());
  if (d.HasParseError()) {
    return Invalid(path, "is not JSON (at byte " + std::to_string(d.GetErrorOffset()) + ")");
  }
  if (!d.IsObject()) return Invalid(path, "is not a JSON object");
  auto version = d.FindMember("version");
  if (version == d.MemberEnd() || !version->value.IsInt() || version->value.GetInt() != kVersion) {
    return Invalid(path, "version must be " + std::to_string(kVersion));
  }
  auto entries = d.FindMember("entries");
  if (entries == d.MemberEnd() || !entries->value.IsArray()) return Invalid(path, "entries is missing or not an array");
  size_t i = 0;
  for (const rapidjson::Value& e : entries->value.GetArray()) {
    CheckpointEntry entry;
    std::string problem;
    if (!DecodeEntry(e, &entry, &problem)) return Invalid(path, "entries[" + std::to_string(i) + "] " + problem);
    const std::string uid = entry.claim.uid;
    if (!cp.entries_.emplace(uid, std::move(entry)).second) {
      return Invalid(path, "entries[" + std::to_string(i) + "]: claim UID " + uid + " is recorded twice");
    }
    ++i;
  }
  return cp;
}

const CheckpointEntry* Checkpoint::Find(const std::string& uid) const {
  auto it = entries_.find(uid);
  return it != entries_.end() ? &it->second : nullptr;
}

Result<void> Checkpoint::Put(CheckpointEntry entry) {
  std::map<std::string, CheckpointEntry> next = entries_;
  const std::string uid = entry.claim.uid;
  next[uid] = std::move(entry);
  if (Result<void> w = Write(next); !w.ok()) return w;
  entries_ = std::move(next);
  return {};
}

Result<void> Checkpoint::Remove(const std::string& uid) {
  if (entries_.count(uid) == 0) return {};
  std::map<std::string, CheckpointEntry> next = entries_;
  next.erase(uid);
  if (Result<void> w = Write(next); !w.ok()) return w;
  entries_ = std::move(next);
  return {};
}

Result<void> Checkpoint::Write(const std::map<std::string, CheckpointEntry>& entries) const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("version");
  w.Int(kVersion);
  w.Key("entries");
  w.StartArray();
  for (const auto& [uid, e] : entries) {
    w.StartObject();
    WriteString(w, "namespace", e.claim.namespace_);
    WriteString(w, "name", e.claim.name);
    WriteString(w, "uid", e.claim.uid);
    WriteString(w, "driver", e.driver);
    WriteString(w, "fileName", e.file_name);
    WriteString(w, "document", e.document);
    w.Key("devices");
    w.StartArray();
    for (const PreparedDevice& d : e.devices) {
      w.StartObject();
      w.Key("requests");
      WriteStrings(w, d.request_names);
      WriteString(w, "pool", d.pool_name);
      WriteString(w, "device", d.device_name);
      w.Key("cdiDeviceIDs");
      WriteStrings(w, d.cdi_device_ids);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::string text(buf.GetString(), buf.GetSize());
  text += '\n';
  Result<void> r = WriteFileAtomic(path_, text, 0600);
  if (!r.ok()) {
    Error e = r.error();
    e.message = "writing checkpoint " + path_ + ": " + e.message;
    return e;
  }
  return {};
}

}  // namespace draforge::node_plugin
