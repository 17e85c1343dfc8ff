#include "scenario_source.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "common/status.h"

namespace draforge::server {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<std::vector<api::Object>> Decode(std::string_view text, std::string_view source) {
  auto decoded = api::DecodeStream(text, {});
  if (!decoded.ok()) return absl::InvalidArgumentError(absl::StrCat(AV(source), ": ", decoded.status().message()));
  std::vector<api::Object> out;
  for (size_t i = 0; i < decoded->size(); ++i) {
    auto& d = (*decoded)[i];
    if (!d.object.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(AV(source), " (object ", i, "): ", d.object.status().message()));
    }
    out.push_back(*std::move(d.object));
  }
  return out;
}

}  // namespace

absl::Status LoadText(std::string_view text, std::string_view source, store::Cluster& cluster) {
  ASSIGN_OR_RETURN(auto objects, Decode(text, source));
  for (size_t i = 0; i < objects.size(); ++i) {
    absl::Status s = cluster.Apply(std::move(objects[i]));
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(AV(source), " (object ", i, "): ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status LoadFile(const std::string& path, store::Cluster& cluster) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return LoadText(text, path, cluster);
}

WatchDir::WatchDir(std::string dir, store::Cluster& cluster) : dir_(std::move(dir)), cluster_(cluster) {}

bool WatchDir::Poll(const std::function<void(const std::string&)>& on_error) {
  namespace fs = std::filesystem;
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> now;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string ext = p.extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    std::error_code e1, e2;
    const auto size = fs::file_size(p, e1);
    const auto mtime = fs::last_write_time(p, e2);
    if (e1 || e2) continue;  // removed while listing
    now[p.string()] = {size, mtime};
  }
  if (ec) {
    on_error(absl::StrCat(dir_, ": ", ec.message()));
    return false;
  }
  if (now == seen_) return false;
  seen_ = now;
  bool changed = false;
  std::map<std::string, std::map<Identity, api::Object>> applied;
  for (const auto& [path, stat] : now) {
    auto text = ReadFile(path);
    auto objects = text.ok() ? Decode(*text, path) : text.status();
    if (!objects.ok()) {
      on_error(std::string(objects.status().message()));
      if (auto prev = applied_.find(path); prev != applied_.end()) applied[path] = prev->second;
      continue;
    }
    auto& mine = applied[path];
    for (auto& obj : *objects) {
      Identity id{static_cast<int>(obj.kind()), std::string(obj.kind_name()),
                  obj.metadata().namespace_.value_or(cluster_.options().default_namespace),
                  obj.metadata().name.value_or("")};
      store::Outcome outcome;
      api::Object copy = obj;
      absl::Status s = cluster_.Apply(std::move(obj), &outcome);
      if (!s.ok()) {
        on_error(absl::StrCat(path, ": ", s.message()));
        continue;
      }
      changed |= outcome == store::Outcome::kAdded || outcome == store::Outcome::kUpdated;
      mine.emplace(std::move(id), std::move(copy));
    }
  }
  // Objects a file held before and no file holds now.
  std::map<Identity, const api::Object*> still;
  for (const auto& [path, objs] : applied) {
    for (const auto& [id, obj] : objs) still[id] = &obj;
  }
  for (const auto& [path, objs] : applied_) {
    for (const auto& [id, obj] : objs) {
      if (still.count(id)) continue;
      api::Object gone = obj;
      gone.metadata().resource_version.reset();
      store::Outcome outcome;
      if (cluster_.DeleteObject(gone, &outcome).ok() && outcome == store::Outcome::kDeleted) changed = true;
    }
  }
  applied_ = std::move(applied);
  return changed;
}

}  // namespace draforge::server
