#include "host/cli/help.h"

#include <doctest/doctest.h>

#include "common/strings.h"
#include "host/cli/command.h"
#include "tests/contains.h"

namespace ktune::host {
namespace {

using test::Contains;

cxxopts::Options Sample() {
  cxxopts::Options o("khost sample", "Do a sample thing to a kernel.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  o.add_options()("reps", "repetitions", cxxopts::value<std::string>()->default_value("5"))(
      "freq", "samples per second (default 4001)",
      cxxopts::value<std::string>()->default_value("0"))(
      "events", "events to count", cxxopts::value<std::string>()->default_value(""))(
      "multiplex", "count all at once")("o,output", "where it goes", cxxopts::value<std::string>());
  return o;
}

const HelpEntry* Entry(const std::vector<HelpEntry>& list, const std::string& name) {
  for (const HelpEntry& e : list) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST_CASE("help lists positionals as arguments and says each default once") {
  const CommandHelp h = HelpOf(Sample());
  CHECK(h.command == "khost sample");
  CHECK(h.description == "Do a sample thing to a kernel.");
  CHECK(h.usage == "khost sample <kernel> [options]");
  REQUIRE(h.arguments.size() == 1);
  CHECK(h.arguments[0].name == "<kernel>");
  CHECK(h.arguments[0].text == "kernel name");
  CHECK(Entry(h.options, "--kernel ARG") == nullptr);
  REQUIRE(Entry(h.options, "--reps ARG") != nullptr);
  CHECK(Entry(h.options, "--reps ARG")->text == "repetitions (default: 5)");
  // The description names its default: cxxopts' own ("0": not given) is not said beside it.
  CHECK(Entry(h.options, "--freq ARG")->text == "samples per second (default 4001)");
  CHECK(Entry(h.options, "--events ARG")->text == "events to count");  // an empty default
  REQUIRE(Entry(h.options, "--multiplex") != nullptr);  // a flag: no value, no "false"
  CHECK(Entry(h.options, "--multiplex")->text == "count all at once");
  CHECK(Entry(h.options, "-o, --output ARG") != nullptr);
}

TEST_CASE("help text: usage, sections, descriptions wrapped beside their names") {
  const std::string text = RenderHelp(HelpOf(Sample()), 40);
  CHECK(
      text.starts_with("Do a sample thing to a kernel.\n\nusage: khost sample <kernel> [options]"));
  CHECK(Contains(text, "\narguments:\n  <kernel>"));
  CHECK(Contains(text, "\noptions:\n"));
  CHECK_FALSE(Contains(text, "--kernel"));
  for (const std::string_view line : Split(text, '\n')) CHECK(line.size() <= 40);
}

TEST_CASE("every command's help: no positional as an option, no default said twice") {
  for (const CommandInfo& c : Commands()) {
    CAPTURE(c.name);
    const CommandHelp h = HelpOf(c.options());
    CHECK(h.usage.starts_with("khost " + std::string(c.name)));
    for (const HelpEntry& a : h.arguments) {
      CHECK(Entry(h.options, "--" + a.name) == nullptr);
    }
    for (const HelpEntry& e : h.options) {
      CAPTURE(e.name);
      const size_t first = e.text.find("(default");
      CHECK(
          (first == std::string::npos || e.text.find("(default", first + 1) == std::string::npos));
      CHECK_FALSE(Contains(e.text, "(default: )"));
      CHECK_FALSE(Contains(e.text, "(default: false)"));
    }
  }
  // khost run: its kernel is an argument, not --kernel.
  const auto run = std::ranges::find_if(
      Commands(), [](const CommandInfo& c) { return std::string(c.name) == "run"; });
  REQUIRE(run != Commands().end());
  const CommandHelp h = HelpOf(run->options());
  CHECK(h.usage == "khost run <kernel> [options]");
  CHECK_FALSE(Contains(RenderHelp(h), "--kernel"));
}

TEST_CASE("a man page from the same model: roff, minus signs escaped, every option") {
  const std::string page = RenderManPage(HelpOf(Sample()), "do a sample thing", "0.1.0");
  CHECK(page.starts_with(".TH KHOST-SAMPLE 1 \"\" \"ktune 0.1.0\" \"ktune manual\"\n"));
  CHECK(Contains(page, ".SH NAME\nkhost\\-sample \\- do a sample thing\n"));
  CHECK(Contains(page, ".SH SYNOPSIS\n.B khost sample <kernel> [options]\n"));
  CHECK(Contains(page, ".SH ARGUMENTS\n.TP\n.B <kernel>\nkernel name\n"));
  CHECK(Contains(page, ".TP\n.B \\-\\-reps ARG\nrepetitions (default: 5)\n"));
  CHECK(Contains(page, ".SH SEE ALSO\n.BR khost (1)\n"));
}

}  // namespace
}  // namespace ktune::host
