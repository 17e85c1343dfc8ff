// The two documents the crash test alternates between: small, and large enough (about 256 KiB) that
// writing it takes many write() calls and a kill often lands in the middle.
#ifndef DRAFORGE_TESTS_CDI_CRASH_SPECS_H_
#define DRAFORGE_TESTS_CDI_CRASH_SPECS_H_

#include <string>

#include "cdi/spec.h"
#include "cdi/version.h"

namespace draforge::cdi::testing {

inline constexpr char kCrashFile[] = "k8s.crash.sim.draforge.io-claim_5e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b.json";

inline Spec SmallSpec() {
  Spec s;
  s.kind = "k8s.crash.sim.draforge.io/claim";
  Device d;
  d.name = "5e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b-dev-0";
  d.container_edits.env = {"DRA_DEVICE_0_DEVICE=dev-0"};
  s.devices.push_back(d);
  s.version = MinimumVersion(s);
  return s;
}

inline Spec LargeSpec() {
  Spec s = SmallSpec();
  for (int i = 1; i < 64; ++i) {
    Device d;
    d.name = "5e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b-dev-" + std::to_string(i);
    d.container_edits.env = {"DRA_DEVICE_" + std::to_string(i) + "_PAYLOAD=" + std::string(4000, 'a' + i % 26)};
    s.devices.push_back(d);
  }
  s.version = MinimumVersion(s);
  return s;
}

}  // namespace draforge::cdi::testing

#endif  // DRAFORGE_TESTS_CDI_CRASH_SPECS_H_
