// khost: the ktune host controller.
#include "host/cli/command.h"

int main(int argc, char** argv) {
  return ktune::KhostMain(argc, argv);
}
