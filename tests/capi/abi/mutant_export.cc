// A deliberately broken build of libdraforge (tests/capi/meson.build: draforge_abi_mutant): the C ABI
// plus two accidental exports, one without the draforge_ prefix and one that no header declares.
// check_symbols.py and check_abi.py must reject it.
#include "draforge/common.h"

extern "C" {
DRAFORGE_API int leaked_helper(int x) { return x + 1; }
DRAFORGE_API int draforge_debug_dump(void) { return 0; }
}
