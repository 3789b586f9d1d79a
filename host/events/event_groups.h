// Named event groups, likwid-style: for a core's event table, a short description, an event set
// and metric formulas over it. They ship as host/events/groups/<table>/<name>.group (generic/ for
// machines whose table has none) and are compiled into khost.
//
// A group file holds one directive per line ('#' starts a comment line):
//   description: TEXT
//   event: EVENT             perf's syntax, resolved by the core's catalog (common/events.h)
//   metric: NAME = FORMULA   host/util/expr.h; a formula reads the group's events (as written
//                            in its event lines) and kernel_time, wall_time, task_clock (seconds)
//   unsupported: REASON      the core cannot support this group; the only directive then
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/events.h"
#include "common/status.h"
#include "host/util/expr.h"

namespace ktune::host {

// What a formula may read besides the group's events.
inline constexpr const char* kMetricTimes[] = {"kernel_time", "wall_time", "task_clock"};

struct MetricDef {
  std::string name;
  std::string formula;
  std::string group;
  Expr expr;
};

struct EventGroup {
  std::string name;  // "l2"
  std::string file;  // "spacemit/x60/l2.group", for messages
  std::string description;
  std::string unsupported;  // why the core cannot support it; "" when it can
  std::vector<std::string> events;
  std::vector<size_t> event_lines;  // each event's line in the file, for messages
  std::vector<MetricDef> metrics;
};

// A metric from its formula text (errors say what the formula lacks).
Result<MetricDef> MakeMetric(const std::string& name, const std::string& formula,
                             const std::string& group);

// Parses one group file. Errors name "file:line". Formulas may read only the group's events and
// kMetricTimes.
Result<EventGroup> ParseGroup(std::string_view text, const std::string& name,
                              const std::string& file);

struct EmbeddedFile {
  const char* path;  // "<table>/<group>.group"
  const char* text;
};

// The groups among `files` for a catalog: its core table's, or the generic ones when the table has
// none. Every event must resolve in the catalog (else an error with file and line).
Result<std::vector<EventGroup>> LoadGroups(std::span<const EmbeddedFile> files,
                                           const EventCatalog& catalog);
// LoadGroups over the shipped groups.
Result<std::vector<EventGroup>> GroupsFor(const EventCatalog& catalog);

// The --events list expanded: events in first-seen order, each once, and the groups' metrics,
// each name once (a metric two groups define alike is kept once; different formulas under one
// name are named "<group>: <name>").
struct Selection {
  std::vector<std::string> events;
  std::vector<MetricDef> metrics;
  std::vector<std::string> groups;
};

// Each item is a group of `groups` (groups take precedence) or an event of `catalog`.
Result<Selection> SelectEvents(const std::vector<std::string>& items,
                               const std::vector<EventGroup>& groups, const EventCatalog& catalog);

// The compiled-in group files (generated from host/events/groups/ by scripts/embed_files.py).
std::span<const EmbeddedFile> GroupFiles();

}  // namespace ktune::host
