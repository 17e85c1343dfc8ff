#include "input.h"

#include <iostream>
#include <iterator>

namespace draforge::cli {

std::string Inputs::Where(size_t i) const {
  const std::string source = cluster.empty() ? std::string(objects.source(i)) : cluster;
  const size_t position = cluster.empty() ? objects.position(i) : i;
  const size_t line = cluster.empty() ? objects.line(i) : 1;
  if (position == 0 && line <= 1) return source + ": ";
  return source + " (object " + std::to_string(position + 1) + ", line " + std::to_string(line) + "): ";
}

draforge::Result<draforge::Objects> ReadObjects(const std::vector<std::string>& sources, bool strict,
                                                size_t max_bytes) {
  draforge::LoadOptions options;
  options.strict = strict;
  options.max_bytes = max_bytes;
  std::string stdin_text;
  for (const std::string& s : sources) {
    if (s != "-") continue;
    stdin_text.assign(std::istreambuf_iterator<char>(std::cin), {});
    options.stdin_text = &stdin_text;
    break;
  }
  auto objects = draforge::Objects::Load(sources, options);
  if (!objects.ok() && objects.error().code == DRAFORGE_ELIMIT) {
    draforge::Error e = objects.error();
    e.message += " (--max-input-size)";
    return e;
  }
  return objects;
}

}  // namespace draforge::cli
