// khost: the ktune host controller.
#include "host/cli/command.h"

int main(int argc, char** argv) {
  return ktune::host::KhostMain(argc, argv);
}
