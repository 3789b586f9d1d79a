#include "host/cli/command.h"

#include <algorithm>
#include <cstring>
#include <iostream>

#include "common/strings.h"
#include "common/version.h"
#include "host/cli/cmd_agent.h"
#include "host/cli/cmd_analyze.h"
#include "host/cli/cmd_best.h"
#include "host/cli/cmd_completion.h"
#include "host/cli/cmd_corpus.h"
#include "host/cli/cmd_db.h"
#include "host/cli/cmd_events.h"
#include "host/cli/cmd_history.h"
#include "host/cli/cmd_push.h"
#include "host/cli/cmd_report.h"
#include "host/cli/cmd_roofline.h"
#include "host/cli/cmd_run.h"
#include "host/cli/cmd_tune.h"
#include "host/cli/help.h"

namespace ktune::host {

const std::vector<CommandInfo>& Commands() {
  static const std::vector<CommandInfo> kCommands = {
      {"tune", "build one ELF per configuration of a kernel, with test data", TuneMain,
       TuneCliOptions},
      {"push", "send a kernel's bundle to an agent (only what it lacks)", PushMain, PushCliOptions},
      {"run", "measure every variant of a kernel on an agent", RunMain, RunCliOptions},
      {"report", "show the results of a run, or compare two", ReportMain, ReportCliOptions},
      {"analyze", "which variant wins, whether it is real, and which counters explain it",
       AnalyzeMain, AnalyzeCliOptions},
      {"best", "the best configuration the tuning database knows, with its evidence; no run",
       BestMain, BestCliOptions},
      {"roofline", "measure the board's ceilings: peak GFLOP/s and GB/s per memory level",
       RooflineMain, RooflineCliOptions},
      {"db", "the tuning database: show what it holds, import runs", DbMain, DbCliOptions,
       DbActions()},
      {"history", "a kernel's times run after run, regressions and improvements flagged",
       HistoryMain, HistoryCliOptions},
      {"events", "the events and groups of a CPU: list, groups", EventsMain, EventsCliOptions,
       EventsActions()},
      {"agent", "the agents: add, list, status, remove, deploy, tune-system", AgentMain,
       AgentCliOptions, AgentActions()},
      {"corpus", "Triton kernels from Inductor dumps: extract, sample, export", CorpusMain,
       CorpusCliOptions, CorpusActions()},
      {"completion", "print the shell completion script: bash, zsh", CompletionMain,
       CompletionCliOptions, CompletionShells()},
  };
  return kCommands;
}

std::vector<std::pair<std::string, std::string>> ManPages() {
  std::string top = ".TH KHOST 1 \"\" \"ktune " KTUNE_VERSION
                    "\" \"ktune manual\"\n"
                    ".SH NAME\nkhost \\- tune compute kernels on boards and this machine\n"
                    ".SH SYNOPSIS\n.B khost\n.I command\n[options]\n"
                    ".SH DESCRIPTION\nkhost builds one ELF per configuration of a kernel, sends "
                    "them to an agent (agentd, on a board or this machine), measures each under "
                    "perf counters, and tells which configuration wins and why. Each command's "
                    "options: khost \\fIcommand\\fR \\-\\-help, or its own page.\n"
                    ".SH COMMANDS\n";
  std::string see_also;
  for (const CommandInfo& c : Commands()) {
    top += ".TP\n.B khost\\-" + std::string(c.name) + "\n" + c.summary + "\n";
    see_also += std::string(see_also.empty() ? "" : ",\n") + ".BR khost\\-" + c.name + " (1)";
  }
  top +=
      ".SH VERSION\n" KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n.SH SEE ALSO\n" + see_also + "\n";
  std::vector<std::pair<std::string, std::string>> pages = {{"khost.1", top}};
  for (const CommandInfo& c : Commands()) {
    pages.emplace_back("khost-" + std::string(c.name) + ".1",
                       RenderManPage(HelpOf(c.options()), c.summary, KTUNE_VERSION));
  }
  return pages;
}

namespace {

void Usage(std::ostream& out) {
  out << "usage: khost <command> [options]   (khost <command> --help for its options)\n\n";
  size_t width = 0;
  for (const CommandInfo& c : Commands()) width = std::max(width, std::strlen(c.name));
  for (const CommandInfo& c : Commands()) {
    out << "  " << c.name << std::string(width + 2 - std::strlen(c.name), ' ') << c.summary << "\n";
  }
}

}  // namespace

int KhostMain(int argc, char** argv) {
  if (argc < 2) {
    Usage(std::cerr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    Usage(std::cout);
    return 0;
  }
  if (name == "--version") {
    std::cout << "khost " KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n";
    return 0;
  }
  for (const CommandInfo& c : Commands()) {
    if (name != c.name) continue;
    try {
      return c.main(Args(argv + 2, argv + argc));
    } catch (const std::exception& e) {
      std::cerr << "khost " << name << ": " << EscapedText(e.what()) << "\n";
      return 1;
    }
  }
  std::cerr << "khost: unknown command '" << EscapedText(name) << "'\n";
  Usage(std::cerr);
  return 2;
}

}  // namespace ktune::host
