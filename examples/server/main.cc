// draforge-server: the read-only HTTP server (README.md, docs/server.md).
#include "server_main.h"

int main(int argc, char** argv) { return draforge::server::ServerMain(argc, argv); }
