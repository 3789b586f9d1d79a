// khost events list|groups: the events and the named groups of a CPU. With --cpu-model the
// tables answer alone; otherwise the agent's CPU decides, and the list shows which events open
// there.
#include <iostream>
#include <map>

#include "common/events.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_events.h"
#include "host/events/event_groups.h"
#include "host/remote/agent_locator.h"
#include "protocol/convert.h"

namespace ktune::host {

const std::vector<std::string>& EventsActions() {
  static const std::vector<std::string> kActions = {"list", "groups"};
  return kActions;
}

cxxopts::Options EventsCliOptions() {
  cxxopts::Options o("khost events", "The events and groups of a CPU. Actions: " +
                                         Join(EventsActions(), ", ") + ".");
  o.add_options(kArgumentsGroup)("action", Join(EventsActions(), " or "),
                                 cxxopts::value<std::string>(), Join(EventsActions(), "|"));
  o.add_options()("cpu-model",
                  "an event table instead of asking the agent: a table (spacemit/x60) or a RISC-V "
                  "core id from /proc/cpuinfo (0x710-0x8000000058000001-0x0)",
                  cxxopts::value<std::string>()->default_value(""));
  AddAgentOption(o);
  return o;
}

namespace {

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

void PrintList(const EventCatalog& catalog, const std::map<std::string, std::string>* opens) {
  size_t width = 8;
  for (const EventDef& e : catalog.events()) width = std::max(width, e.name.size() + 2);
  std::cout << Pad("event", width) << Pad("source", 20) << Pad("topic", 12)
            << (opens ? Pad("opens", 7) : "") << "description\n";
  for (const EventDef& e : catalog.events()) {
    std::cout << Pad(e.name, width) << Pad(e.source, 20)
              << Pad(e.topic.empty() ? "-" : e.topic, 12);
    if (opens) {
      auto it = opens->find(e.name);
      std::cout << Pad(it == opens->end() ? "?" : it->second.empty() ? "yes" : "no", 7);
    }
    std::cout << e.description << "\n";
  }
  for (const EventAlias& a : EventAliases()) {
    if (catalog.core() == a.table) {
      std::cout << Pad(a.name, width) << "alias of " << a.target << ": " << a.reason << "\n";
    }
  }
}

void PrintGroups(const std::vector<EventGroup>& groups) {
  for (const EventGroup& g : groups) {
    if (!g.unsupported.empty()) {
      std::cout << Pad(g.name, 9) << "not available: " << g.unsupported << "\n";
      continue;
    }
    std::cout << Pad(g.name, 9) << g.description << "\n";
    std::cout << std::string(9, ' ') << "events:";
    for (const std::string& e : g.events) std::cout << " " << e;
    std::cout << "\n";
    for (const MetricDef& m : g.metrics) {
      std::cout << std::string(9, ' ') << "metric: " << m.name << " = " << m.formula << "\n";
    }
  }
}

}  // namespace

Result<EventsRequest> ParseEventsArgs(const Args& args) {
  cxxopts::Options o = EventsCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  EventsRequest req;
  req.action = r["action"].as<std::string>();
  KT_RETURN_IF_ERROR(CheckAction(req.action, EventsActions()));
  if (const std::string model = r["cpu-model"].as<std::string>(); !model.empty()) {
    KT_ASSIGN_OR_RETURN(req.cpu_model, CoreTableNamed(model));
  }
  req.agent = r["agent"].as<std::string>();
  req.token_file = r["token-file"].as<std::string>();
  return req;
}

Status ExecuteEvents(const EventsRequest& req) {
  std::map<std::string, std::string> opens;  // event -> why it does not open ("" if it does)
  EventCatalog catalog = EventCatalog::Generic();
  if (!req.cpu_model.empty()) {
    KT_ASSIGN_OR_RETURN(catalog, EventCatalog::For("riscv64", req.cpu_model));
    std::cout << "CPU model " << catalog.core() << " (from the tables)\n";
  } else {
    KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(req.agent, req.token_file));
    const wire::Capabilities& caps = session.conn->hello().capabilities();
    const CpuId cpu = CpuFromWire(caps.cpu());
    KT_ASSIGN_OR_RETURN(catalog, EventCatalog::ForCpu(cpu, ""));
    for (const auto& e : caps.events()) opens[e.name()] = e.opens() ? "" : e.reason();
    std::cout << "agent " << session.conn->where() << ": " << DescribeCpu(cpu) << ", event table "
              << (catalog.core().empty() ? "none (generic events only)" : catalog.core()) << "\n";
  }
  if (req.action == "list") {
    PrintList(catalog, req.cpu_model.empty() ? &opens : nullptr);
  } else {
    KT_ASSIGN_OR_RETURN(const std::vector<EventGroup> groups, GroupsFor(catalog));
    PrintGroups(groups);
  }
  return Status::Ok();
}

int EventsMain(const Args& args) {
  return CommandMain("events", EventsCliOptions, ParseEventsArgs, ExecuteEvents, args);
}

}  // namespace ktune::host
