// A violation the allow-list names (never compiled).
#include "api/object.h"
