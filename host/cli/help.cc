#include "host/cli/help.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace ktune::host {
namespace {

// The options' description: cxxopts keeps it private, and help() of a group no command has
// gives it alone, followed by the usage line's custom text ("[OPTION...]") and a blank line.
std::string DescriptionOf(const cxxopts::Options& options) {
  std::string text = options.help({"\x01 no group"}, false);
  const size_t cut = text.rfind(" [OPTION...]");
  if (cut != std::string::npos) text.resize(cut);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// "(default: X)" where it says something: a flag's default is being off, an empty default is
// none, and a description that names its own default ("(default 4001)", "default: the
// agent's") is not told again.
std::string DefaultNote(const cxxopts::HelpOptionDetails& o) {
  if (o.is_boolean || !o.has_default || o.default_value.empty()) return "";
  if (o.desc.find("default") != std::string::npos) return "";
  return " (default: " + o.default_value + ")";
}

// Words of `text` in lines of at most `width` columns (a longer word has a line of its own).
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& word : SplitWords(text)) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

void RenderEntries(const std::vector<HelpEntry>& entries, size_t width, std::string* out) {
  constexpr size_t kNameColumn = 2, kMaxName = 26, kGap = 2;
  size_t name_width = 0;
  for (const HelpEntry& e : entries) {
    if (e.name.size() <= kMaxName) name_width = std::max(name_width, e.name.size());
  }
  const size_t text_column = kNameColumn + name_width + kGap;
  const size_t text_width = width > text_column + 20 ? width - text_column : 20;
  for (const HelpEntry& e : entries) {
    std::string line = std::string(kNameColumn, ' ') + e.name;
    const std::vector<std::string> text = Wrap(e.text, text_width);
    size_t i = 0;
    if (line.size() + kGap <= text_column) {
      line.resize(text_column, ' ');
      if (!text.empty()) line += text[i++];
    }
    *out += line + "\n";
    for (; i < text.size(); ++i) *out += std::string(text_column, ' ') + text[i] + "\n";
  }
}

// roff text: a backslash as roff's \e, a leading dot or quote kept from being read as a request,
// and '-' as the minus of an option.
std::string Roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

}  // namespace

CommandHelp HelpOf(const cxxopts::Options& options) {
  CommandHelp h;
  h.command = options.program();
  h.description = DescriptionOf(options);
  std::string usage_args;
  for (const std::string& group : options.groups()) {
    for (const cxxopts::HelpOptionDetails& o : options.group_help(group).options) {
      if (o.l.empty()) continue;
      if (group == kArgumentsGroup) {
        const std::string name = o.arg_help.empty() ? "<" + o.l.front() + ">" : o.arg_help;
        usage_args += " " + name;
        h.arguments.push_back({name, o.desc + DefaultNote(o)});
        continue;
      }
      std::string name = o.s.empty() ? "" : "-" + o.s + ", ";
      for (size_t i = 0; i < o.l.size(); ++i) name += (i ? ", --" : "--") + o.l[i];
      if (!o.is_boolean) name += " " + AsciiUpper(o.arg_help.empty() ? "ARG" : o.arg_help);
      h.options.push_back({name, o.desc + DefaultNote(o)});
    }
  }
  h.usage = h.command + usage_args + (h.options.empty() ? "" : " [options]");
  return h;
}

std::string RenderHelp(const CommandHelp& help, size_t width) {
  std::string out;
  for (const std::string& line : Wrap(help.description, width)) out += line + "\n";
  out += "\nusage: " + help.usage + "\n";
  if (!help.arguments.empty()) {
    out += "\narguments:\n";
    RenderEntries(help.arguments, width, &out);
  }
  if (!help.options.empty()) {
    out += "\noptions:\n";
    RenderEntries(help.options, width, &out);
  }
  return out;
}

std::string RenderManPage(const CommandHelp& help, const std::string& summary,
                          const std::string& version) {
  std::string page_name = help.command;
  std::replace(page_name.begin(), page_name.end(), ' ', '-');
  std::string out =
      ".TH " + AsciiUpper(page_name) + " 1 \"\" \"ktune " + version + "\" \"ktune manual\"\n";
  out += ".SH NAME\n" + Roff(page_name) + " \\- " + Roff(summary) + "\n";
  out += ".SH SYNOPSIS\n.B " + Roff(help.usage) + "\n";
  out += ".SH DESCRIPTION\n" + Roff(help.description) + "\n";
  auto entries = [&](const char* title, const std::vector<HelpEntry>& list) {
    if (list.empty()) return;
    out += std::string(".SH ") + title + "\n";
    for (const HelpEntry& e : list) out += ".TP\n.B " + Roff(e.name) + "\n" + Roff(e.text) + "\n";
  };
  entries("ARGUMENTS", help.arguments);
  entries("OPTIONS", help.options);
  out += ".SH SEE ALSO\n.BR khost (1)\n";
  return out;
}

}  // namespace ktune::host
