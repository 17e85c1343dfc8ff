#include "metrics.h"

#include <cstdio>
#include <string_view>

#include "rapidjson/document.h"

namespace draforge::server {
namespace {

// Label values escape backslash, double quote and line feed (exposition format).
std::string Label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value as Prometheus clients print it: integers as they are, others with six significant
// digits (0.0005, 0.333333, 2.5).
std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string Number(uint64_t v) { return std::to_string(v); }
std::string Number(int64_t v) { return std::to_string(v); }
std::string Number(int v) { return std::to_string(v); }

void Header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
  out.append(type).append("\n");
}

void Sample(std::string& out, std::string_view name_and_labels, const std::string& value) {
  out.append(name_and_labels).append(" ").append(value).append("\n");
}

const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}
uint64_t Count(const rapidjson::Value* counts, const char* name) {
  const rapidjson::Value* v = counts ? Member(*counts, name) : nullptr;
  return v && v->IsUint64() ? v->GetUint64() : 0;
}
std::string Text(const rapidjson::Value& v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m && m->IsString() ? std::string(m->GetString(), m->GetStringLength()) : std::string();
}
double Double(const rapidjson::Value& v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m && m->IsNumber() ? m->GetDouble() : 0;
}

}  // namespace

void Metrics::CountRequest(const std::string& route, int status) {
  std::lock_guard lock(mu_);
  ++requests_[{route, status}];
}

void Metrics::ObserveLatency(const std::string& route, double seconds) {
  std::lock_guard lock(mu_);
  Histogram& h = latency_[route];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::CountRateLimited() {
  std::lock_guard lock(mu_);
  ++rate_limited_;
}

void Metrics::CountEventsSent(uint64_t n) {
  std::lock_guard lock(mu_);
  events_sent_ += n;
}

std::string Metrics::Render(const Snapshot& snapshot, int64_t sse_clients, uint64_t events_published,
                            bool ready) const {
  std::string out;
  {
    std::lock_guard lock(mu_);
    Header(out, "draforge_http_requests_total", "counter", "HTTP requests answered, by route and status code.");
    for (const auto& [key, n] : requests_) {
      Sample(out, "draforge_http_requests_total{route=\"" + Label(key.first) + "\",code=\"" + Number(key.second) + "\"}",
             Number(n));
    }
    Header(out, "draforge_http_request_duration_seconds", "histogram",
           "Time to produce an API response (handler time), by route.");
    for (const auto& [route, h] : latency_) {
      const std::string l = Label(route);
      for (size_t i = 0; i < kBuckets.size(); ++i) {
        Sample(out, "draforge_http_request_duration_seconds_bucket{route=\"" + l + "\",le=\"" + Number(kBuckets[i]) + "\"}",
               Number(h.buckets[i]));
      }
      Sample(out, "draforge_http_request_duration_seconds_bucket{route=\"" + l + "\",le=\"+Inf\"}", Number(h.count));
      Sample(out, "draforge_http_request_duration_seconds_sum{route=\"" + l + "\"}", Number(h.sum));
      Sample(out, "draforge_http_request_duration_seconds_count{route=\"" + l + "\"}", Number(h.count));
    }
    Header(out, "draforge_http_rate_limited_total", "counter", "Requests refused with 429.");
    Sample(out, "draforge_http_rate_limited_total", Number(rate_limited_));
    Header(out, "draforge_sse_events_sent_total", "counter", "Server-Sent Events written to clients.");
    Sample(out, "draforge_sse_events_sent_total", Number(events_sent_));
  }
  Header(out, "draforge_sse_clients", "gauge", "Open /api/v1/events streams.");
  Sample(out, "draforge_sse_clients", Number(sse_clients));
  Header(out, "draforge_sse_events_published_total", "counter", "Change events produced from store changes.");
  Sample(out, "draforge_sse_events_published_total", Number(events_published));
  Header(out, "draforge_ready", "gauge", "1 when the store is synced (/readyz 200).");
  Sample(out, "draforge_ready", ready ? "1" : "0");
  Header(out, "draforge_store_generation", "gauge", "Changes published by the store.");
  Sample(out, "draforge_store_generation", Number(snapshot.generation()));
  Header(out, "draforge_store_objects", "gauge", "Objects in the store, by kind.");
  for (const char* kind : {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice",
                           "DeviceTaintRule", "Pod", "Node"}) {
    Sample(out, std::string("draforge_store_objects{kind=\"") + kind + "\"}",
           Number(static_cast<uint64_t>(snapshot.count(kind))));
  }
  // The figures below come from the summary view; if the library cannot render it (out of memory)
  // the gauges are left out rather than reported as zero.
  rapidjson::Document summary;
  if (auto json = inventory::SummaryJson(snapshot); json.ok()) summary.Parse(json->c_str(), json->size());
  if (summary.HasParseError() || !summary.IsObject()) return out;
  const rapidjson::Value* counts = Member(summary, "counts");
  const uint64_t reserved = Count(counts, "reservedClaims");
  Header(out, "draforge_claims", "gauge", "ResourceClaims by state.");
  Sample(out, "draforge_claims{state=\"pending\"}", Number(Count(counts, "pendingClaims")));
  Sample(out, "draforge_claims{state=\"allocated\"}", Number(Count(counts, "allocatedClaims") - reserved));
  Sample(out, "draforge_claims{state=\"reserved\"}", Number(reserved));
  static const rapidjson::Value kEmpty(rapidjson::kArrayType);
  const rapidjson::Value* pools_member = Member(summary, "pools");
  const rapidjson::Value& pools = pools_member && pools_member->IsArray() ? *pools_member : kEmpty;
  auto pool_labels = [](const rapidjson::Value& p) {
    return "{driver=\"" + Label(Text(p, "driver")) + "\",pool=\"" + Label(Text(p, "pool")) + "\"}";
  };
  Header(out, "draforge_pool_devices", "gauge", "Devices of the pool's current generation.");
  for (const auto& p : pools.GetArray()) {
    Sample(out, "draforge_pool_devices" + pool_labels(p), Number(static_cast<uint64_t>(Double(p, "devices"))));
  }
  Header(out, "draforge_pool_allocated_devices", "gauge", "Devices of the pool held by a claim (not adminAccess).");
  for (const auto& p : pools.GetArray()) {
    Sample(out, "draforge_pool_allocated_devices" + pool_labels(p),
           Number(static_cast<uint64_t>(Double(p, "allocatedDevices"))));
  }
  Header(out, "draforge_pool_utilisation", "gauge", "Allocated devices / devices of the pool (0..1).");
  for (const auto& p : pools.GetArray()) {
    Sample(out, "draforge_pool_utilisation" + pool_labels(p), Number(Double(p, "utilisation")));
  }
  Header(out, "draforge_driver_utilisation", "gauge", "Allocated devices / devices of the driver (0..1).");
  const rapidjson::Value* drivers = Member(summary, "drivers");
  for (const auto& d : (drivers && drivers->IsArray() ? *drivers : kEmpty).GetArray()) {
    Sample(out, "draforge_driver_utilisation{driver=\"" + Label(Text(d, "driver")) + "\"}",
           Number(Double(d, "utilisation")));
  }
  return out;
}

}  // namespace draforge::server
