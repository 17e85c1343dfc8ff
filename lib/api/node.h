// core/v1 Node, as far as DRA needs it: the name and labels that node selectors match. Spec and status
// are kept verbatim.
#ifndef DRAFORGE_API_NODE_H_
#define DRAFORGE_API_NODE_H_

#include <optional>

#include "api/meta.h"
#include "api/raw_json.h"

namespace draforge::api {

struct Node {
  ObjectMeta metadata;
  std::optional<RawJson> spec;
  std::optional<RawJson> status;
  friend bool operator==(const Node&, const Node&) = default;
};

}  // namespace draforge::api

#endif  // DRAFORGE_API_NODE_H_
