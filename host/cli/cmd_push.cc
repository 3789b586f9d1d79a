// khost push <kernel>: sends the kernel's bundle to the agent; blobs it already holds are not
// sent again.
#include <iostream>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_push.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"

namespace ktune::host {

cxxopts::Options PushCliOptions() {
  cxxopts::Options o("khost push", "Send a kernel's bundle to an agent.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  AddRootOption(o);
  AddAgentOption(o);
  return o;
}

Result<PushRequest> ParsePushArgs(const Args& args) {
  cxxopts::Options o = PushCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  PushRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.root = r["root"].as<std::string>();
  req.agent = r["agent"].as<std::string>();
  req.token_file = r["token-file"].as<std::string>();
  return req;
}

Status ExecutePush(const PushRequest& req) {
  KT_ASSIGN_OR_RETURN(KernelDir dir, LoadKernelDir(req.root, req.kernel));
  KT_ASSIGN_OR_RETURN(Manifest manifest, BuildManifest(dir));
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(req.agent, req.token_file));
  KT_ASSIGN_OR_RETURN(PushStats stats, PushBundle(*session.conn, manifest, dir.root));
  std::cout << "pushed " << req.kernel << " to " << session.conn->where() << ": bundle "
            << stats.bundle_id.substr(0, 12) << ", " << stats.files << " files, "
            << stats.blobs_sent << " blobs sent, " << stats.deltas_sent << " of them as deltas ("
            << FormatMiB(stats.raw_bytes_sent) << " raw, " << FormatMiB(stats.wire_bytes_sent)
            << " on the wire)\n";
  return Status::Ok();
}

int PushMain(const Args& args) {
  return CommandMain("push", PushCliOptions, ParsePushArgs, ExecutePush, args);
}

}  // namespace ktune::host
