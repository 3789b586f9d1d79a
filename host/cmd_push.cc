// khost push <kernel>: sends the kernel's bundle to the agent; blobs it already holds are not
// sent again.
#include <cstdio>
#include <iostream>

#include "host/agent_locator.h"
#include "host/cli.h"
#include "host/command.h"
#include "host/kernel_dir.h"

namespace ktune {
namespace {

cxxopts::Options PushCliOptions() {
  cxxopts::Options o("khost push", "Send a kernel's bundle to an agent.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>());
  AddRootOption(o);
  AddAgentOption(o);
  o.positional_help("<kernel>");
  return o;
}

std::string MiB(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

Result<PushRequest> ParsePushArgs(const Args& args) {
  cxxopts::Options o = PushCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, {"kernel"}));
  PushRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.root = r["root"].as<std::string>();
  req.agent = r["agent"].as<std::string>();
  return req;
}

int PushMain(const Args& args) {
  if (WantsHelp(args)) {
    std::cout << PushCliOptions().help();
    return 0;
  }
  auto req = ParsePushArgs(args);
  if (!req.ok()) return UsageError("push", req.status());
  auto dir = LoadKernelDir(req->root, req->kernel);
  if (!dir.ok()) return Failure("push", dir.status());
  auto manifest = BuildManifest(*dir);
  if (!manifest.ok()) return Failure("push", manifest.status());
  auto session = OpenAgentSession(req->agent);
  if (!session.ok()) return Failure("push", session.status());
  auto stats = PushBundle(*session->conn, *manifest, dir->root);
  if (!stats.ok()) return Failure("push", stats.status());
  std::cout << "pushed " << req->kernel << " to " << session->conn->address().ToString()
            << ": bundle " << stats->bundle_id.substr(0, 12) << ", " << stats->files
            << " files, " << stats->blobs_sent << " blobs sent (" << MiB(stats->raw_bytes_sent)
            << " raw, " << MiB(stats->wire_bytes_sent) << " on the wire)\n";
  return 0;
}

}  // namespace ktune
