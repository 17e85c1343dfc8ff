// Planted violations (never compiled): lib/ headers by name and by relative path, and Abseil.
#include "store/cluster.h"
#include <absl/status/status.h>
#include "../../../../../lib/api/codec.h"
// The front end's own header, found next to this file before lib/graph/graph.h: not a violation.
#include "graph/graph.h"
#include "draforge/draforge.hpp"
/* #include "alloc/allocator.h" in a comment is not an include. */
