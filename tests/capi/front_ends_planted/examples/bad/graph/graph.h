// The planted front end's own header (never compiled).
#include <string>
