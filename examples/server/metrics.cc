#include "metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "analysis/inventory.h"
#include "common/status.h"

namespace draforge::server {
namespace {

// Label values escape backslash, double quote and line feed (exposition format).
std::string Label(std::string_view v) {
  return absl::StrReplaceAll(AV(v), {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}});
}

void Header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  absl::StrAppend(&out, "# HELP ", AV(name), " ", AV(help), "\n# TYPE ", AV(name), " ", AV(type), "\n");
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

std::string Metrics::Render(const store::Snapshot& snapshot, int64_t sse_clients, uint64_t events_published,
                            bool ready) const {
  std::string out;
  {
    std::lock_guard lock(mu_);
    Header(out, "draforge_http_requests_total", "counter", "HTTP requests answered, by route and status code.");
    for (const auto& [key, n] : requests_) {
      absl::StrAppend(&out, "draforge_http_requests_total{route=\"", Label(key.first), "\",code=\"", key.second,
                      "\"} ", n, "\n");
    }
    Header(out, "draforge_http_request_duration_seconds", "histogram",
           "Time to produce an API response (handler time), by route.");
    for (const auto& [route, h] : latency_) {
      const std::string l = Label(route);
      for (size_t i = 0; i < kBuckets.size(); ++i) {
        absl::StrAppend(&out, "draforge_http_request_duration_seconds_bucket{route=\"", l, "\",le=\"", kBuckets[i],
                        "\"} ", h.buckets[i], "\n");
      }
      absl::StrAppend(&out, "draforge_http_request_duration_seconds_bucket{route=\"", l, "\",le=\"+Inf\"} ", h.count,
                      "\n");
      absl::StrAppend(&out, "draforge_http_request_duration_seconds_sum{route=\"", l, "\"} ", h.sum, "\n");
      absl::StrAppend(&out, "draforge_http_request_duration_seconds_count{route=\"", l, "\"} ", h.count, "\n");
    }
    Header(out, "draforge_http_rate_limited_total", "counter", "Requests refused with 429.");
    absl::StrAppend(&out, "draforge_http_rate_limited_total ", rate_limited_, "\n");
    Header(out, "draforge_sse_events_sent_total", "counter", "Server-Sent Events written to clients.");
    absl::StrAppend(&out, "draforge_sse_events_sent_total ", events_sent_, "\n");
  }
  Header(out, "draforge_sse_clients", "gauge", "Open /api/v1/events streams.");
  absl::StrAppend(&out, "draforge_sse_clients ", sse_clients, "\n");
  Header(out, "draforge_sse_events_published_total", "counter", "Change events produced from store changes.");
  absl::StrAppend(&out, "draforge_sse_events_published_total ", events_published, "\n");
  Header(out, "draforge_ready", "gauge", "1 when the store is synced (/readyz 200).");
  absl::StrAppend(&out, "draforge_ready ", ready ? 1 : 0, "\n");
  Header(out, "draforge_store_generation", "gauge", "Changes published by the store.");
  absl::StrAppend(&out, "draforge_store_generation ", snapshot.generation(), "\n");
  Header(out, "draforge_store_objects", "gauge", "Objects in the store, by kind.");
  for (api::Kind kind : {api::Kind::kDeviceClass, api::Kind::kResourceClaim, api::Kind::kResourceClaimTemplate,
                         api::Kind::kResourceSlice, api::Kind::kDeviceTaintRule, api::Kind::kPod, api::Kind::kNode}) {
    absl::StrAppend(&out, "draforge_store_objects{kind=\"", AV(api::KindName(kind)), "\"} ", snapshot.Count(kind), "\n");
  }
  const analysis::Summary s = analysis::Summarize(snapshot);
  Header(out, "draforge_claims", "gauge", "ResourceClaims by state.");
  absl::StrAppend(&out, "draforge_claims{state=\"pending\"} ", s.counts.pending_claims, "\n");
  absl::StrAppend(&out, "draforge_claims{state=\"allocated\"} ", s.counts.allocated_claims - s.counts.reserved_claims,
                  "\n");
  absl::StrAppend(&out, "draforge_claims{state=\"reserved\"} ", s.counts.reserved_claims, "\n");
  Header(out, "draforge_pool_devices", "gauge", "Devices of the pool's current generation.");
  for (const auto& p : s.pools) {
    absl::StrAppend(&out, "draforge_pool_devices{driver=\"", Label(p.driver), "\",pool=\"", Label(p.pool), "\"} ",
                    p.devices, "\n");
  }
  Header(out, "draforge_pool_allocated_devices", "gauge", "Devices of the pool held by a claim (not adminAccess).");
  for (const auto& p : s.pools) {
    absl::StrAppend(&out, "draforge_pool_allocated_devices{driver=\"", Label(p.driver), "\",pool=\"", Label(p.pool),
                    "\"} ", p.allocated_devices, "\n");
  }
  Header(out, "draforge_pool_utilisation", "gauge", "Allocated devices / devices of the pool (0..1).");
  for (const auto& p : s.pools) {
    absl::StrAppend(&out, "draforge_pool_utilisation{driver=\"", Label(p.driver), "\",pool=\"", Label(p.pool),
                    "\"} ", p.utilisation, "\n");
  }
  Header(out, "draforge_driver_utilisation", "gauge", "Allocated devices / devices of the driver (0..1).");
  for (const auto& d : s.drivers) {
    absl::StrAppend(&out, "draforge_driver_utilisation{driver=\"", Label(d.driver), "\"} ", d.utilisation, "\n");
  }
  return out;
}

}  // namespace draforge::server
