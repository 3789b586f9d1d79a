// khost agent status: connects to the agent and shows what it reported about its machine.
#include <iostream>

#include "host/agent_locator.h"
#include "host/cli.h"
#include "host/command.h"

namespace ktune {
namespace {

cxxopts::Options AgentCliOptions() {
  cxxopts::Options o("khost agent", "Talk to an agent. Actions: status.");
  o.add_options()("action", "status", cxxopts::value<std::string>());
  AddAgentOption(o);
  o.positional_help("status");
  return o;
}

std::string CpuText(const wire::CpuIdentity& cpu) {
  std::string s = cpu.arch();
  if (!cpu.riscv_id().empty()) s += ", " + cpu.riscv_id();
  if (!cpu.x86_vendor().empty()) {
    s += ", " + cpu.x86_vendor() + " family " + std::to_string(cpu.x86_family()) + " model " +
         std::to_string(cpu.x86_model());
  }
  if (!cpu.model_name().empty()) s += " (" + cpu.model_name() + ")";
  return s;
}

}  // namespace

Result<AgentRequest> ParseAgentArgs(const Args& args) {
  cxxopts::Options o = AgentCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, {"action"}));
  AgentRequest req;
  req.action = r["action"].as<std::string>();
  if (req.action != "status")
    return InvalidArgument("unknown action '" + req.action + "' (status)");
  req.agent = r["agent"].as<std::string>();
  return req;
}

Status ExecuteAgent(const AgentRequest& req) {
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(req.agent));
  const wire::HelloReply& h = session.conn->hello();
  const wire::Capabilities& c = h.capabilities();
  std::cout << "agent:       " << session.conn->address().ToString() << " (agentd "
            << h.agent_version() << ", protocol " << h.protocol_version() << ")\n"
            << "cpu:         " << CpuText(c.cpu()) << "\n"
            << "cpus:        " << c.cpu_count() << "\n"
            << "kernel:      " << c.kernel_release() << "\n"
            << "paranoid:    "
            << (c.has_perf_event_paranoid() ? std::to_string(c.perf_event_paranoid()) : "unknown")
            << (c.running_as_root() ? " (agent runs as root)" : "") << "\n";
  std::string opens, fails;
  for (const auto& e : c.events()) (e.opens() ? opens : fails) += e.name() + " ";
  std::cout << "events open: " << (opens.empty() ? "none" : opens) << "\n"
            << "not supported: " << (fails.empty() ? "none" : fails) << "\n";
  return Status::Ok();
}

int AgentMain(const Args& args) {
  return CommandMain("agent", AgentCliOptions, ParseAgentArgs, ExecuteAgent, args);
}

}  // namespace ktune
