#include "scenario_source.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "rapidjson/document.h"

namespace draforge::server {
namespace {

struct Change {
  std::string type, kind, ns, name;
};

// The entries of a ChangeEvent's "changes" (draforge_inventory_changes_json).
std::vector<Change> ParseChanges(const std::string& json) {
  std::vector<Change> out;
  rapidjson::Document doc;
  doc.Parse(json.c_str(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return out;
  auto changes = doc.FindMember("changes");
  if (changes == doc.MemberEnd() || !changes->value.IsArray()) return out;
  auto text = [](const rapidjson::Value& v, const char* name) {
    auto it = v.FindMember(name);
    return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString()) : std::string();
  };
  for (const auto& c : changes->value.GetArray()) {
    if (c.IsObject()) out.push_back({text(c, "type"), text(c, "kind"), text(c, "namespace"), text(c, "name")});
  }
  return out;
}

}  // namespace

Result<void> LoadText(std::string_view text, std::string_view source, Cluster& cluster) {
  auto applied = cluster.Apply(text);
  if (!applied.ok()) {
    Error e = std::move(applied).error();
    e.message = std::string(source) + ": " + e.message;
    return e;
  }
  return {};
}

Result<Objects> ReadFile(const std::string& path, size_t max_bytes) {
  LoadOptions options;
  options.max_bytes = max_bytes;
  auto objects = Objects::Load({path}, options);
  if (!objects.ok()) {
    Error e = std::move(objects).error();
    if (e.code == DRAFORGE_ELIMIT) e.message += " (--max-input-size)";
    return e;
  }
  // As draforge_cluster_apply_file says it: the source, the object's place in it, the problem.
  for (size_t i = 0; i < objects->size(); ++i) {
    if (objects->decoded(i)) continue;
    Error e;
    e.code = DRAFORGE_EINVALID;
    e.message = std::string(objects->source(i)) + ": object " + std::to_string(objects->position(i) + 1) + " (line " +
                std::to_string(objects->line(i)) + "): " + std::string(objects->error(i));
    return e;
  }
  return objects;
}

namespace {

// What the directory looks like without reading its files: every entry's name, size and
// modification time, sorted. Equal stamps mean there is nothing new to load.
std::string DirectoryStamp(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> rows;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec, time_ec;
    const auto size = it->file_size(size_ec);
    const auto time = it->last_write_time(time_ec);
    rows.push_back(it->path().filename().string() + '\t' + std::to_string(size_ec ? 0 : size) + '\t' +
                   std::to_string(time_ec ? 0 : time.time_since_epoch().count()));
  }
  if (ec) return "error: " + ec.message();
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const std::string& row : rows) out += row + '\n';
  return out;
}

}  // namespace

WatchDir::WatchDir(std::string dir, Cluster& cluster, size_t max_bytes)
    : dir_(std::move(dir)), cluster_(cluster), max_bytes_(max_bytes) {}

bool WatchDir::Poll(const std::function<void(const std::string&)>& on_error) {
  auto report = [&](const std::string& message) {
    if (message != last_error_) on_error(message);
    last_error_ = message;
  };
  std::string stamp = DirectoryStamp(dir_);
  if (loaded_ && stamp == stamp_) return false;
  stamp_ = std::move(stamp);
  auto staging = Cluster::Create();
  if (!staging.ok()) {
    report(staging.error().message);
    return false;
  }
  auto files = ReadFile(dir_, max_bytes_);
  if (!files.ok()) {
    report(files.error().message);
    return false;
  }
  if (auto applied = staging->ApplyObjects(*files); !applied.ok()) {
    report(applied.error().message);
    return false;
  }
  last_error_.clear();
  auto now = staging->snapshot();
  if (!now.ok()) return false;
  if (!loaded_) {
    auto empty = Cluster::Create();
    if (!empty.ok()) return false;
    auto base = empty->snapshot();
    if (!base.ok()) return false;
    loaded_ = *base;
  }
  auto changes = inventory::ChangesJson(*loaded_, *now);
  if (!changes.ok() || changes->count == 0) return false;
  bool changed = false;
  for (const Change& c : ParseChanges(changes->json)) {
    if (c.type == "DELETED") {
      auto deleted = cluster_.Delete(c.kind, c.ns, c.name);
      changed |= deleted.ok() && *deleted;
      continue;
    }
    auto object = now->GetJson(c.kind, c.ns, c.name);
    auto applied = object.ok() ? cluster_.Apply(*object) : Result<size_t>(object.error());
    if (!applied.ok()) {
      on_error(dir_ + ": " + c.kind + " " + c.ns + (c.ns.empty() ? "" : "/") + c.name + ": " + applied.error().message);
      continue;
    }
    changed = true;
  }
  loaded_ = *now;
  return changed;
}

}  // namespace draforge::server
