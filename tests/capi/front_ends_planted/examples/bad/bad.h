// Planted violation (never compiled).
#include "common/status.h"
