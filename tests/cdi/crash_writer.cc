// The writer the crash test kills: replaces one spec file over and over, alternating between two
// documents of very different sizes, until it is killed. Usage: cdi_crash_writer DIR FILE
// It prints nothing; exit status 2 for bad usage, 3 when a write fails.
#include <string>

#include "cdi/spec.h"
#include "cdi/spec_codec.h"
#include "cdi/writer.h"
#include "crash_specs.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string dir = argv[1];
  const std::string file = argv[2];
  const draforge::cdi::Spec specs[2] = {draforge::cdi::testing::SmallSpec(), draforge::cdi::testing::LargeSpec()};
  for (unsigned i = 0;; ++i) {
    if (!draforge::cdi::WriteSpec(dir, file, specs[i % 2]).ok()) return 3;
  }
}
