// Where khost finds the files it runs with: the directory of its own executable (the agentd it
// starts for local runs is beside it, in the build tree and in an installation alike), and the
// files it ships (the example and roofline kernels, the toolchain profiles, agentd's systemd
// unit): an installation's <prefix>/share/ktune beside <prefix>/bin/khost, else the source tree
// khost was built from.
#pragma once

#include <string>

namespace ktune::host {

// The directory of the running khost ("." if /proc/self/exe cannot be read).
std::string KhostDir();

// <prefix>/share/ktune for an installed khost (that directory holds toolchains/), else the
// source tree of the build. Its kernels/, toolchains/ and scripts/ktune-agentd.service are
// what khost tune, roofline and agent deploy take by default.
std::string ShippedDir();

}  // namespace ktune::host
