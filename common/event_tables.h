// The RISC-V event tables, generated at build time by scripts/gen_event_catalog.py from Linux
// perf's pmu-events JSON (common/pmu-events; see its README.md for provenance). Data only; the
// catalog (common/events.h) gives it meaning.
#pragma once

#include <cstddef>
#include <span>

namespace ktune {

// One event of a table: a raw event, opened with PERF_TYPE_RAW and this config.
struct TableEvent {
  const char* name;
  unsigned long long config;
  const char* topic;  // the JSON file it came from: "cache", "microarch", "firmware", ...
  const char* description;
};

struct EventTable {
  const char* name;  // "spacemit/x60", "sifive/bullet", "riscv/sbi-firmware", ...
  const TableEvent* events;
  std::size_t size;
};

// A mapfile row: a POSIX extended regex over "mvendorid-marchid-mimpid", and its table ("" for
// a table perf has and ktune does not copy: the row still matches first).
struct CpuMapping {
  const char* id_regex;
  const char* table;
};

std::span<const EventTable> EventTables();
// In perf's order: the first row whose regex matches the whole id wins.
std::span<const CpuMapping> CpuMappings();

}  // namespace ktune
