// Helpers of the node plugin's tests.
#ifndef DRAFORGE_TESTS_NODE_PLUGIN_NODE_PLUGIN_TEST_UTIL_H_
#define DRAFORGE_TESTS_NODE_PLUGIN_NODE_PLUGIN_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace draforge::node_plugin::testing {

// A fresh directory under /tmp; its name is short because unix socket paths must be.
inline std::filesystem::path TempDir() {
  char tmpl[] = "/tmp/npt-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

// The value of the sample `name` (with its labels, if any) in Prometheus text, or "<missing>".
inline std::string Metric(const std::string& text, const std::string& name) {
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return "<missing>";
  const size_t start = at + name.size() + 2;
  return text.substr(start, text.find('\n', start) - start);
}

}  // namespace draforge::node_plugin::testing

#endif  // DRAFORGE_TESTS_NODE_PLUGIN_NODE_PLUGIN_TEST_UTIL_H_
