// IP addresses and prefixes as Go's net/netip parses and prints them: the values behind the
// Kubernetes CEL types net.IP and net.CIDR (k8s.io/apiserver/pkg/cel/{ip,cidr}.go).
#ifndef DRAFORGE_CEL_NET_H_
#define DRAFORGE_CEL_NET_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace draforge::cel {

// An IPv4 (bytes[0..3]) or IPv6 (bytes[0..15]) address without a zone. Trivially copyable, so that
// the CEL arena can hold it.
struct NetAddr {
  uint8_t bytes[16] = {};
  bool is4 = false;

  int BitLen() const { return is4 ? 32 : 128; }
  // netip.Addr.Is4In6: an IPv6 address of the form ::ffff:a.b.c.d.
  bool Is4In6() const;
  bool IsUnspecified() const;
  bool IsLoopback() const;
  bool IsLinkLocalMulticast() const;
  bool IsLinkLocalUnicast() const;
  bool IsGlobalUnicast() const;
  // netip.Addr.String: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as "::").
  std::string String() const;
  friend bool operator==(const NetAddr& a, const NetAddr& b);
};

// An address and a prefix length; the address keeps its host bits (netip.Prefix).
struct NetPrefix {
  NetAddr addr;
  int bits = 0;

  // netip.Prefix.Contains / Overlaps / Masked / String.
  bool Contains(const NetAddr& ip) const;
  bool Overlaps(const NetPrefix& o) const;
  NetPrefix Masked() const;
  std::string String() const;
  friend bool operator==(const NetPrefix& a, const NetPrefix& b) { return a.addr == b.addr && a.bits == b.bits; }
};

// netip.ParseAddr. Returns false and sets *error to Go's text ("ParseAddr(\"1.2.3\"): IPv4 address
// too short") when `s` is not an address. *has_zone is set when an IPv6 zone ("%eth0") was given.
bool ParseNetAddr(std::string_view s, NetAddr* out, bool* has_zone, std::string* error);
// netip.ParsePrefix, errors as Go's text ("netip.ParsePrefix(\"1.2.3.4/\"): bad bits after slash: \"\"").
bool ParseNetPrefix(std::string_view s, NetPrefix* out, std::string* error);

// Go's strconv.Quote (UTF-8 text kept, control and invalid bytes escaped).
std::string GoQuoted(std::string_view s);

}  // namespace draforge::cel

#endif  // DRAFORGE_CEL_NET_H_
