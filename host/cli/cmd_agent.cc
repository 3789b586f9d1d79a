// khost agent: the agents a user works with. `add NAME --addr HOST:PORT | --ssh [USER@]HOST[:PORT]
// | --lava URL --device-type T` registers one in the config file (host/remote/agent_registry.h),
// `list` shows them, `remove NAME` forgets one, `status [NAME]` connects and shows what the agent
// reported about its machine and the roofline ceilings khost roofline kept for it, `deploy NAME`
// puts agentd on a board reached by ssh and starts it (host/remote/deploy.h), `tune-system [NAME]
// [--reset]` has agentd (as root) set the performance governor and boost off, or undo it.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_agent.h"
#include "host/lava/job_template.h"
#include "host/remote/agent_locator.h"
#include "host/report/roofline.h"
#include "host/report/system_report.h"
#include "host/roofline/roofline_plan.h"
#include "protocol/convert.h"

namespace ktune::host {

const std::vector<std::string>& AgentActions() {
  static const std::vector<std::string> kActions = {"add",    "list",   "status",
                                                    "remove", "deploy", "tune-system"};
  return kActions;
}

cxxopts::Options AgentCliOptions() {
  cxxopts::Options o(
      "khost agent",
      "The agents khost works with. Actions: add NAME (--addr HOST:PORT | --ssh "
      "[USER@]HOST[:PORT] | --lava URL --device-type T --job-template FILE), list, status [NAME], "
      "remove NAME, deploy NAME, tune-system [NAME] [--reset].");
  o.add_options(kArgumentsGroup)("action", Join(AgentActions(), ", "),
                                 cxxopts::value<std::string>(), Join(AgentActions(), "|"))(
      "name", "the agent's name", cxxopts::value<std::string>()->default_value(""), "[NAME]");
  o.add_options()("addr", "add: the agent listens at HOST:PORT",
                  cxxopts::value<std::string>()->default_value(""))(
      "ssh", "add: the board is reached by ssh at [USER@]HOST[:PORT]",
      cxxopts::value<std::string>()->default_value(""))(
      "agent-port", "add --ssh: agentd's port on the board's loopback",
      cxxopts::value<std::string>()->default_value(std::to_string(kDefaultAgentPort)))(
      "ssh-option", "add --ssh: an ssh option KEY=VALUE (repeatable), e.g. IdentityFile=~/.ssh/lab",
      cxxopts::value<std::vector<std::string>>())(
      "lava", "add: boards of a LAVA lab, whose server is at URL (http:// or https://)",
      cxxopts::value<std::string>()->default_value(""))(
      "device-type", "add --lava: the lab's device type of the boards",
      cxxopts::value<std::string>()->default_value(""))(
      "boards", "add --lava: how many boards each command reserves",
      cxxopts::value<std::string>()->default_value("1"))(
      "job-template", "add --lava: the job definition khost submits per board (docs/LAVA.md)",
      cxxopts::value<std::string>()->default_value(""))(
      "job-minutes", "add --lava: the job's timeout, the longest a board stays reserved",
      cxxopts::value<std::string>()->default_value("60"))("replace",
                                                          "add: replace an agent of the same name")(
      "agentd", "deploy: the agentd binary to copy (default: the one built for the board)",
      cxxopts::value<std::string>()->default_value(""))(
      "systemd", "deploy: install and start the systemd unit scripts/ktune-agentd.service")(
      "store", "deploy: agentd's store on the board (default ~/.local/share/ktune/agent)",
      cxxopts::value<std::string>()->default_value(""))(
      "bin-dir", "deploy: where agentd goes on the board (default ~/.local/lib/ktune)",
      cxxopts::value<std::string>()->default_value(""))(
      "reset", "tune-system: write back what tune-system changed");
  AddAgentOption(o);
  AddDbOption(o);
  return o;
}

namespace {

// The config file as a JSON document (empty when there is none yet).
Result<nlohmann::json> LoadConfig(const std::string& path) {
  KT_ASSIGN_OR_RETURN(const std::string text, ReadConfigFile(path));
  return ParseConfigText(text, path);
}

Result<std::vector<RegisteredAgent>> LoadRegistry() {
  const std::string path = ConfigFilePath();
  KT_ASSIGN_OR_RETURN(const nlohmann::json doc, LoadConfig(path));
  return ReadRegistry(doc, path);
}

// The ceilings khost roofline kept for `board` in the tuning database: for each thread count, a
// line of compute peaks and one of memory levels; else why there are none and how to measure them.
std::string RooflineLines(const AgentRequest& req, const std::string& board,
                          const std::string& agent) {
  const std::string measure = "khost roofline --agent " + agent + " measures them";
  Result<std::optional<DbChoice>> where = DbFor(req.db);
  if (!where.ok() || !*where) return "roofline:    no tuning database (" + measure + ")\n";
  Result<std::unique_ptr<TuningDb>> db = TuningDb::Open(**where, /*create=*/false);
  Result<std::vector<int64_t>> threads =
      db.ok() ? (*db)->CeilingThreads(board) : Result<std::vector<int64_t>>(db.status());
  if (!threads.ok() || threads->empty()) {
    return "roofline:    no ceilings for this board in " + (**where).url + " (" + measure + ")\n";
  }
  std::string out;
  for (const int64_t n : *threads) {
    Result<std::vector<CeilingRow>> rows = (*db)->CeilingsOf(board, n);
    if (!rows.ok() || rows->empty()) continue;
    std::vector<std::string> runs;
    for (const CeilingRow& r : *rows) {
      if (std::find(runs.begin(), runs.end(), r.run_id) == runs.end()) runs.push_back(r.run_id);
    }
    const CeilingsSummary s = SummarizeCeilings(CeilingsFromRows(*rows));
    out += "roofline:    " + ThreadsLabel(n) + " (runs " + Join(runs, ", ") + ")\n";
    if (!s.compute.empty()) out += "  compute:   " + s.compute + "\n";
    if (!s.memory.empty()) out += "  memory:    " + s.memory + "\n";
  }
  return out;
}

Status ShowStatus(const AgentRequest& req) {
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(req.agent, req.token_file));
  const wire::HelloReply& h = session.conn->hello();
  const wire::Capabilities& c = h.capabilities();
  std::cout << "agent:       "
            << (session.ssh
                    ? session.ssh->name() + " (ssh " + session.ssh->spec().target.ToString() +
                          ", forwarded to " + session.conn->where() + ")"
                    : session.conn->where())
            << " (agentd " << h.agent_version() << ", protocol " << h.protocol_version() << ")\n"
            << "cpu:         " << DescribeCpu(CpuFromWire(c.cpu())) << "\n"
            << "event table: "
            << (c.cpu().core().empty() ? "none (generic events only)" : c.cpu().core()) << "\n"
            << "cpus:        " << c.cpu_count() << "\n"
            << "kernel:      " << c.kernel_release() << "\n"
            << "paranoid:    "
            << (c.has_perf_event_paranoid() ? std::to_string(c.perf_event_paranoid()) : "unknown")
            << (c.running_as_root() ? " (agent runs as root)" : "") << "\n";
  int opens = 0;
  for (const auto& e : c.events()) opens += e.opens();
  std::cout << "events:      " << opens << " of " << c.events_size()
            << " open here (khost events list shows each)\n";
  if (opens > 0) {
    std::cout << "opening:     ";
    int shown = 0;
    for (const auto& e : c.events()) {
      if (e.opens() && shown++ < 12) std::cout << e.name() << " ";
    }
    std::cout << (opens > 12 ? "..." : "") << "\n";
  }
  if (c.has_system()) std::cout << RenderSystemCheck(SystemCheckFromWire(c.system()));
  std::cout << RooflineLines(req, CpuFingerprint(CpuFromWire(c.cpu())), session.name);
  return Status::Ok();
}

// tune-system: the agent's changes, one a line.
Status TuneAgentSystem(const AgentRequest& req) {
  KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(req.agent, req.token_file));
  wire::Envelope ask;
  ask.mutable_tune_system()->set_reset(req.reset);
  KT_RETURN_IF_ERROR(session.conn->Send(ask));
  KT_ASSIGN_OR_RETURN(const wire::Envelope reply, session.conn->Receive());
  if (!reply.has_system_tuned()) return ProtocolError("the agent did not answer tune-system");
  for (const std::string& change : reply.system_tuned().changes()) std::cout << change << "\n";
  return Status::Ok();
}

// add NAME --lava URL: the lab, its device type, boards, job template (read and filled once
// here, so that a broken one is said now) and job minutes, with the API's --token-file.
Status ParseLavaEntry(const cxxopts::ParseResult& r, AgentRequest* req) {
  LavaSource lava;
  lava.url = r["lava"].as<std::string>();
  if (!lava.url.starts_with("http://") && !lava.url.starts_with("https://")) {
    return InvalidArgument("--lava '" + lava.url +
                           "': the lab's server as http://HOST[:PORT] or "
                           "https://HOST[:PORT]");
  }
  lava.device_type = r["device-type"].as<std::string>();
  if (lava.device_type.empty()) return InvalidArgument("--lava needs --device-type T");
  KT_RETURN_IF_ERROR(ValidateLavaDeviceType(lava.device_type).WithContext("--device-type"));
  KT_ASSIGN_OR_RETURN(const int64_t boards,
                      IntegerOption(r, "boards", 1, kMaxLavaBoards, "a number of boards"));
  lava.boards = static_cast<size_t>(boards);
  KT_ASSIGN_OR_RETURN(lava.job_minutes, IntegerOption(r, "job-minutes", 1, kMaxLavaJobMinutes,
                                                      "a number of minutes"));
  const std::string job = r["job-template"].as<std::string>();
  if (job.empty()) return InvalidArgument("--lava needs --job-template FILE (docs/LAVA.md)");
  lava.job_template = std::filesystem::absolute(job).lexically_normal().string();
  KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(lava.job_template));
  KT_ASSIGN_OR_RETURN(
      const std::string filled,
      FillJobTemplate(text, {.token = "0", .port = 1, .job_minutes = 1}, lava.job_template));
  KT_RETURN_IF_ERROR(JobAgentAddress(filled, lava.job_template).status());
  req->entry.lava = std::move(lava);
  req->entry.token_file = req->token_file;
  return Status::Ok();
}

// add NAME: the entry's address (--addr, with its --token-file), ssh target (--ssh, with its
// --agent-port and --ssh-options) or LAVA lab (--lava).
Status ParseNewEntry(const cxxopts::ParseResult& r, AgentRequest* req) {
  const std::string& name = req->entry.name;
  const std::string addr = r["addr"].as<std::string>(), ssh = r["ssh"].as<std::string>();
  const std::string lava = r["lava"].as<std::string>();
  if (!addr.empty() + !ssh.empty() + !lava.empty() != 1) {
    return InvalidArgument("'khost agent add " + name +
                           "' needs one of --addr HOST:PORT, --ssh [USER@]HOST[:PORT] or --lava "
                           "URL");
  }
  if (ssh.empty() && (r.count("agent-port") || r.count("ssh-option"))) {
    return InvalidArgument("--agent-port and --ssh-option go with --ssh");
  }
  if (!lava.empty()) return ParseLavaEntry(r, req);
  if (!addr.empty()) {
    KT_ASSIGN_OR_RETURN(req->entry.addr, ParseHostPort(addr));
    req->entry.token_file = req->token_file;
  } else {
    KT_ASSIGN_OR_RETURN(req->entry.ssh, ParseSshTarget(ssh));
    if (!req->token_file.empty()) {
      return InvalidArgument("an ssh agent needs no token: agentd stays on the board's loopback");
    }
  }
  KT_ASSIGN_OR_RETURN(const int64_t port, IntegerOption(r, "agent-port", 1, 65535, "a TCP port"));
  req->entry.agent_port = static_cast<uint16_t>(port);
  if (r.count("ssh-option")) {
    req->entry.ssh_options = r["ssh-option"].as<std::vector<std::string>>();
  }
  for (const std::string& opt : req->entry.ssh_options) {
    if (opt.find('=') == std::string::npos || opt.front() == '=') {
      return InvalidArgument("--ssh-option '" + opt + "': KEY=VALUE");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<AgentRequest> ParseAgentArgs(const Args& args) {
  cxxopts::Options o = AgentCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, 1));
  AgentRequest req;
  req.action = r["action"].as<std::string>();
  KT_RETURN_IF_ERROR(CheckAction(req.action, AgentActions()));
  const std::string name = r["name"].as<std::string>();
  req.agent = r["agent"].as<std::string>();
  req.token_file = r["token-file"].as<std::string>();
  auto only_with = [&](const std::vector<std::string>& options, const std::string& action) {
    return OptionsOnlyWith(r, "agent", req.action, action, options);
  };
  KT_RETURN_IF_ERROR(only_with({"addr", "ssh", "agent-port", "ssh-option", "replace", "lava",
                                "device-type", "boards", "job-template", "job-minutes"},
                               "add"));
  KT_RETURN_IF_ERROR(only_with({"agentd", "systemd", "store", "bin-dir"}, "deploy"));
  KT_RETURN_IF_ERROR(only_with({"reset"}, "tune-system"));
  KT_RETURN_IF_ERROR(only_with({"db"}, "status"));
  req.db = r["db"].as<std::string>();
  if (req.action == "list") {
    if (!name.empty()) return InvalidArgument("'khost agent list' takes no name");
    return req;
  }
  if (req.action == "status" || req.action == "tune-system") {
    if (!name.empty() && !req.agent.empty()) {
      return InvalidArgument("give the agent as NAME or as --agent, not both");
    }
    if (!name.empty()) req.agent = name;
    req.reset = r.count("reset") > 0;
    return req;
  }
  if (name.empty()) return InvalidArgument("'khost agent " + req.action + "' needs a NAME");
  KT_RETURN_IF_ERROR(ValidateAgentName(name));
  req.entry.name = name;
  if (req.action == "deploy") {
    req.deploy.agentd = r["agentd"].as<std::string>();
    req.deploy.systemd = r.count("systemd") > 0;
    req.deploy.store = r["store"].as<std::string>();
    req.deploy.bin_dir = r["bin-dir"].as<std::string>();
    return req;
  }
  if (req.action == "remove") return req;
  KT_RETURN_IF_ERROR(ParseNewEntry(r, &req));
  req.replace = r.count("replace") > 0;
  return req;
}

Status ExecuteAgent(const AgentRequest& req) {
  if (req.action == "status") return ShowStatus(req);
  if (req.action == "tune-system") return TuneAgentSystem(req);
  const std::string path = ConfigFilePath();
  if (req.action == "list") {
    KT_ASSIGN_OR_RETURN(const std::vector<RegisteredAgent> agents, LoadRegistry());
    if (agents.empty()) {
      std::cout << "no agents registered in " << path
                << " (khost agent add NAME --addr HOST:PORT | --ssh [USER@]HOST[:PORT])\n";
    }
    for (const RegisteredAgent& a : agents) std::cout << a.name << "\t" << a.Describe() << "\n";
    return Status::Ok();
  }
  if (req.action == "deploy") {
    KT_ASSIGN_OR_RETURN(const std::vector<RegisteredAgent> agents, LoadRegistry());
    const auto agent = FindAgent(agents, req.entry.name);
    if (!agent) return NotFound("no agent named " + req.entry.name + " (khost agent list)");
    return DeployAgent(*agent, req.deploy);
  }
  KT_ASSIGN_OR_RETURN(nlohmann::json doc, LoadConfig(path));
  if (req.action == "add") {
    KT_ASSIGN_OR_RETURN(doc, WithAgent(std::move(doc), req.entry, req.replace));
  } else {
    KT_ASSIGN_OR_RETURN(doc, WithoutAgent(std::move(doc), req.entry.name));
  }
  KT_RETURN_IF_ERROR(WriteConfigFile(path, doc));
  std::cerr << "khost agent: " << (req.action == "add" ? "added " : "removed ") << req.entry.name
            << (req.action == "add" ? " (" + req.entry.Describe() + ")" : "") << " in " << path
            << "\n";
  return Status::Ok();
}

int AgentMain(const Args& args) {
  return CommandMain("agent", AgentCliOptions, ParseAgentArgs, ExecuteAgent, args);
}

}  // namespace ktune::host
