#include "host/events/event_groups.h"

#include <algorithm>
#include <map>

#include "common/strings.h"

namespace ktune::host {
namespace {

bool IsTime(const std::string& name) {
  for (const char* t : kMetricTimes) {
    if (name == t) return true;
  }
  return false;
}

// "spacemit/x60/l2.group" -> {"spacemit/x60", "l2"}.
std::pair<std::string, std::string> SplitGroupPath(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view file = path.substr(slash + 1);
  return {std::string(path.substr(0, slash)), std::string(file.substr(0, file.find('.')))};
}

}  // namespace

Result<MetricDef> MakeMetric(const std::string& name, const std::string& formula,
                             const std::string& group) {
  KT_ASSIGN_OR_RETURN(Expr expr, Expr::Parse(formula));
  return MetricDef{name, formula, group, std::move(expr)};
}

Result<EventGroup> ParseGroup(std::string_view text, const std::string& name,
                              const std::string& file) {
  EventGroup g;
  g.name = name;
  g.file = file;
  size_t line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_no;
    const std::string where = file + ":" + std::to_string(line_no) + ": ";
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return InvalidArgument(where + "expected 'key: value'");
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string value(Trim(line.substr(colon + 1)));
    if (value.empty()) return InvalidArgument(where + "empty " + std::string(key));
    if (!g.unsupported.empty()) {
      return InvalidArgument(where + "an unsupported group has nothing but its reason");
    }
    if (key == "description") {
      g.description = value;
    } else if (key == "event") {
      if (std::find(g.events.begin(), g.events.end(), value) != g.events.end()) {
        return InvalidArgument(where + "event " + value + " is listed twice");
      }
      g.events.push_back(value);
      g.event_lines.push_back(line_no);
    } else if (key == "metric") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos) return InvalidArgument(where + "expected 'NAME = FORMULA'");
      auto metric = MakeMetric(std::string(Trim(std::string_view(value).substr(0, eq))),
                               std::string(Trim(std::string_view(value).substr(eq + 1))), name);
      if (!metric.ok()) return InvalidArgument(where + metric.status().message());
      MetricDef m = std::move(metric).value();
      for (const std::string& n : m.expr.names()) {
        if (!IsTime(n) && std::find(g.events.begin(), g.events.end(), n) == g.events.end()) {
          return InvalidArgument(where + "metric '" + m.name + "' reads " + n +
                                 ", which is not an event of this group");
        }
      }
      g.metrics.push_back(std::move(m));
    } else if (key == "unsupported") {
      if (!g.events.empty() || !g.metrics.empty() || !g.description.empty()) {
        return InvalidArgument(where + "an unsupported group has nothing but its reason");
      }
      g.unsupported = value;
    } else {
      return InvalidArgument(where + "unknown key '" + std::string(key) + "'");
    }
  }
  if (g.unsupported.empty() && g.events.empty()) {
    return InvalidArgument(file + ": a group needs events, or an unsupported: reason");
  }
  return g;
}

Result<std::vector<EventGroup>> GroupsFor(const EventCatalog& catalog) {
  return LoadGroups(GroupFiles(), catalog);
}

Result<std::vector<EventGroup>> LoadGroups(std::span<const EmbeddedFile> files,
                                           const EventCatalog& catalog) {
  bool own = false;
  for (const EmbeddedFile& f : files) {
    if (!catalog.core().empty() && SplitGroupPath(f.path).first == catalog.core()) own = true;
  }
  const std::string table = own ? catalog.core() : "generic";
  std::vector<EventGroup> groups;
  for (const EmbeddedFile& f : files) {
    const auto [dir, name] = SplitGroupPath(f.path);
    if (dir != table) continue;
    KT_ASSIGN_OR_RETURN(EventGroup g, ParseGroup(f.text, name, f.path));
    // Each event must resolve on this core.
    for (size_t k = 0; k < g.events.size(); ++k) {
      auto spec = catalog.Parse(g.events[k]);
      if (!spec.ok()) {
        return InvalidArgument(std::string(f.path) + ":" + std::to_string(g.event_lines[k]) + ": " +
                               spec.status().message());
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

Result<Selection> SelectEvents(const std::vector<std::string>& items,
                               const std::vector<EventGroup>& groups, const EventCatalog& catalog) {
  Selection sel;
  auto add_event = [&](const std::string& e) {
    if (std::find(sel.events.begin(), sel.events.end(), e) == sel.events.end()) {
      sel.events.push_back(e);
    }
  };
  for (const std::string& item : items) {
    const auto group = std::find_if(groups.begin(), groups.end(),
                                    [&](const EventGroup& g) { return g.name == item; });
    if (group != groups.end()) {
      if (!group->unsupported.empty()) {
        return InvalidArgument("group " + item + " is not available for " +
                               (catalog.core().empty() ? "generic events" : catalog.core()) + ": " +
                               group->unsupported);
      }
      if (std::find(sel.groups.begin(), sel.groups.end(), item) != sel.groups.end()) continue;
      sel.groups.push_back(item);
      for (const std::string& e : group->events) add_event(e);
      for (const MetricDef& m : group->metrics) sel.metrics.push_back(m);
      continue;
    }
    auto spec = catalog.Parse(item);
    if (!spec.ok()) {
      std::vector<std::string> names;
      for (const EventGroup& g : groups) names.push_back(g.name);
      return InvalidArgument(spec.status().message() + " (groups: " + Join(names, ", ") + ")");
    }
    add_event(item);
  }
  // A metric two groups share (same name, same formula) is kept once; the same name for
  // different formulas is told apart by its group: "vector: IPC".
  std::vector<MetricDef> metrics;
  for (MetricDef& m : sel.metrics) {
    const bool repeat = std::any_of(metrics.begin(), metrics.end(), [&](const MetricDef& k) {
      return k.name == m.name && k.formula == m.formula;
    });
    if (!repeat) metrics.push_back(std::move(m));
  }
  std::map<std::string, int> uses;
  for (const MetricDef& m : metrics) ++uses[m.name];
  for (MetricDef& m : metrics) {
    if (uses[m.name] > 1) m.name = m.group + ": " + m.name;
  }
  sel.metrics = std::move(metrics);
  return sel;
}

}  // namespace ktune::host
