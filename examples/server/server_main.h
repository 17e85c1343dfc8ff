// The draforge-server command line, callable from another program (e.g. `draforge demo --serve`).
#ifndef DRAFORGE_EXAMPLES_SERVER_SERVER_MAIN_H_
#define DRAFORGE_EXAMPLES_SERVER_SERVER_MAIN_H_

namespace draforge::server {

// Parses draforge-server's flags (argv[0] is the program name), serves until SIGINT or SIGTERM and
// returns the exit status: 0 after a clean stop, 1 when the source or the socket fails, 2 for bad
// flags. Prints the listening URL to stdout and errors to stderr. The program must link the
// embedded texts kDemoScenario and kOpenApi (examples/server/meson.build generates them).
int ServerMain(int argc, char** argv);

}  // namespace draforge::server

#endif  // DRAFORGE_EXAMPLES_SERVER_SERVER_MAIN_H_
