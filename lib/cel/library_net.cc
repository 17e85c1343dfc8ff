// The Kubernetes IP and CIDR CEL libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go):
// net.IP and net.CIDR values, their constructors, predicates and accessors, with upstream's error
// texts. IPv6 zones and IPv4-mapped IPv6 addresses are rejected, as upstream does.
#include <string>

#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/net.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

// parseIPAddr in ip.go: the address, or its error text in *error.
bool ParseIP(std::string_view s, NetAddr* out, std::string* error) {
  bool zone = false;
  std::string go_error;
  if (!ParseNetAddr(s, out, &zone, &go_error)) {
    *error = Cat("IP Address ", GoQuoted(s), " parse error during conversion from string: ", go_error);
    return false;
  }
  if (zone) {
    *error = Cat("IP address ", GoQuoted(s), " with zone value is not allowed");
    return false;
  }
  if (out->Is4In6()) {
    *error = Cat("IPv4-mapped IPv6 address ", GoQuoted(s), " is not allowed");
    return false;
  }
  return true;
}

// parseCIDR in cidr.go (its callers add the prefix once more, which users see twice).
bool ParseCIDR(std::string_view s, NetPrefix* out, std::string* error) {
  std::string go_error;
  if (!ParseNetPrefix(s, out, &go_error)) {
    *error = "network address parse error during conversion from string: " + go_error;
    return false;
  }
  if (out->addr.Is4In6()) {
    *error = Cat("IPv4-mapped IPv6 address ", GoQuoted(s), " is not allowed");
    return false;
  }
  return true;
}

Value StringToIP(EvalContext& ctx, std::string_view s) {
  NetAddr a;
  std::string error;
  if (!ParseIP(s, &a, &error)) return Err(ctx, error);
  return Value::IP(ctx.arena->New<NetAddr>(a));
}
Value StringToCIDR(EvalContext& ctx, std::string_view s) {
  NetPrefix p;
  std::string error;
  if (!ParseCIDR(s, &p, &error)) return Err(ctx, "network address parse error during conversion from string: " + error);
  return Value::CIDR(ctx.arena->New<NetPrefix>(p));
}

Value IPParse(EvalContext& ctx, const Value* a) { return StringToIP(ctx, a[0].str()); }
Value IsIP(EvalContext&, const Value* a) {
  NetAddr ip;
  std::string error;
  return Value::Bool(ParseIP(a[0].str(), &ip, &error));
}
Value IPIsCanonical(EvalContext& ctx, const Value* a) {
  NetAddr ip;
  std::string error;
  if (!ParseIP(a[0].str(), &ip, &error)) return Err(ctx, error);
  return Value::Bool(ip.String() == a[0].str());
}
Value IPToString(EvalContext& ctx, const Value* a) {
  return Value::String(ctx.arena->CopyString(a[0].ip()->String()));
}
Value Family(EvalContext&, const Value* a) { return Value::Int(a[0].ip()->is4 ? 4 : 6); }
Value IsUnspecified(EvalContext&, const Value* a) { return Value::Bool(a[0].ip()->IsUnspecified()); }
Value IsLoopback(EvalContext&, const Value* a) { return Value::Bool(a[0].ip()->IsLoopback()); }
Value IsLinkLocalMulticast(EvalContext&, const Value* a) { return Value::Bool(a[0].ip()->IsLinkLocalMulticast()); }
Value IsLinkLocalUnicast(EvalContext&, const Value* a) { return Value::Bool(a[0].ip()->IsLinkLocalUnicast()); }
Value IsGlobalUnicast(EvalContext&, const Value* a) { return Value::Bool(a[0].ip()->IsGlobalUnicast()); }

Value CIDRParse(EvalContext& ctx, const Value* a) { return StringToCIDR(ctx, a[0].str()); }
Value IsCIDR(EvalContext&, const Value* a) {
  NetPrefix p;
  std::string error;
  return Value::Bool(ParseCIDR(a[0].str(), &p, &error));
}
Value CIDRToString(EvalContext& ctx, const Value* a) {
  return Value::String(ctx.arena->CopyString(a[0].cidr()->String()));
}
Value ContainsIP(EvalContext&, const Value* a) { return Value::Bool(a[0].cidr()->Contains(*a[1].ip())); }
Value ContainsIPString(EvalContext& ctx, const Value* a) {
  // Upstream hands the parse error to an IP type check, which reports the overload, not the error
  // (unlike containsCIDR, which passes the parse error on).
  NetAddr ip;
  std::string error;
  if (!ParseIP(a[1].str(), &ip, &error)) return Err(ctx, "no such overload");
  return Value::Bool(a[0].cidr()->Contains(ip));
}
bool PrefixContains(const NetPrefix& outer, const NetPrefix& inner) {
  return outer.Overlaps(inner) && outer.bits <= inner.bits;
}
Value ContainsCIDR(EvalContext&, const Value* a) { return Value::Bool(PrefixContains(*a[0].cidr(), *a[1].cidr())); }
Value ContainsCIDRString(EvalContext& ctx, const Value* a) {
  Value other = StringToCIDR(ctx, a[1].str());
  if (other.IsError()) return other;
  return Value::Bool(PrefixContains(*a[0].cidr(), *other.cidr()));
}
Value CIDRIP(EvalContext& ctx, const Value* a) { return Value::IP(ctx.arena->New<NetAddr>(a[0].cidr()->addr)); }
Value PrefixLength(EvalContext&, const Value* a) { return Value::Int(a[0].cidr()->bits); }
Value Masked(EvalContext& ctx, const Value* a) {
  return Value::CIDR(ctx.arena->New<NetPrefix>(a[0].cidr()->Masked()));
}

}  // namespace

void RegisterNetLibraries(FunctionRegistry& r) {
  const Type Ip = Type::IP(), Cidr = Type::CIDR(), S = Type::String(), Bo = Type::Bool(), I = Type::Int();
  r.Add("ip", "string_to_ip", {S}, Ip, false, IPParse);
  r.Add("family", "ip_family", {Ip}, I, true, Family);
  r.Add("ip.isCanonical", "ip_is_canonical", {S}, Bo, false, IPIsCanonical);
  r.Add("isUnspecified", "ip_is_unspecified", {Ip}, Bo, true, IsUnspecified);
  r.Add("isLoopback", "ip_is_loopback", {Ip}, Bo, true, IsLoopback);
  r.Add("isLinkLocalMulticast", "ip_is_link_local_multicast", {Ip}, Bo, true, IsLinkLocalMulticast);
  r.Add("isLinkLocalUnicast", "ip_is_link_local_unicast", {Ip}, Bo, true, IsLinkLocalUnicast);
  r.Add("isGlobalUnicast", "ip_is_global_unicast", {Ip}, Bo, true, IsGlobalUnicast);
  r.Add("isIP", "is_ip", {S}, Bo, false, IsIP);
  r.Add("string", "ip_to_string", {Ip}, S, false, IPToString);

  r.Add("cidr", "string_to_cidr", {S}, Cidr, false, CIDRParse);
  r.Add("containsIP", "cidr_contains_ip_string", {Cidr, S}, Bo, true, ContainsIPString);
  r.Add("containsIP", "cidr_contains_ip_ip", {Cidr, Ip}, Bo, true, ContainsIP);
  r.Add("containsCIDR", "cidr_contains_cidr_string", {Cidr, S}, Bo, true, ContainsCIDRString);
  r.Add("containsCIDR", "cidr_contains_cidr", {Cidr, Cidr}, Bo, true, ContainsCIDR);
  r.Add("ip", "cidr_ip", {Cidr}, Ip, true, CIDRIP);
  r.Add("prefixLength", "cidr_prefix_length", {Cidr}, I, true, PrefixLength);
  r.Add("masked", "cidr_masked", {Cidr}, Cidr, true, Masked);
  r.Add("isCIDR", "is_cidr", {S}, Bo, false, IsCIDR);
  r.Add("string", "cidr_to_string", {Cidr}, S, false, CIDRToString);
}

}  // namespace draforge::cel
