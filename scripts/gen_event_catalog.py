#!/usr/bin/env python3
"""Generates ktune's RISC-V event catalog (C++ data) from Linux perf's pmu-events tables.

    gen_event_catalog.py PMU_EVENTS_DIR OUTPUT.cc

PMU_EVENTS_DIR is common/pmu-events (copied from Linux's tools/perf/pmu-events/arch and the
SpacemiT vendor tree; see its README.md). The rules are perf's:
  - every directory of JSON files under riscv/ is one core's table, named by its path
    ("spacemit/x60"); riscv-sbi-firmware.json and riscv-generic.json are tables of their own
    ("riscv/sbi-firmware", "riscv/generic");
  - "EventCode" is a raw event (PERF_TYPE_RAW, config = the code read as a base-0 number: some
    tables write hex, some decimal); "ConfigCode" is used as config as it is; "ArchStdEvent" names
    an entry of the arch-standard tables (riscv-sbi-firmware.json, riscv-generic.json);
  - mapfile.csv rows map "mvendorid-marchid-mimpid" regexes to tables, first match wins; the
    vendor mapfile (mapfile-vendor-x60.csv) follows, its "ky/x60" being stored as
    "spacemit/x60". A row naming a table that is not here still matches first, as in perf, and
    gives no table (generic events only). A regex must stay in the subset agentd matches
    without glibc's regex (MatchIdPattern, common/cpu.h): literals and bracket expressions, each
    optionally followed by '+' or '*'.
Anything else (an unknown key, a code that does not parse, a name defined twice with different
codes) stops the build with the file and event named.
"""
import csv
import json
import os
import re
import sys

from gen_common import write_if_changed

ARCH_STD = {"riscv-sbi-firmware.json": "riscv/sbi-firmware", "riscv-generic.json": "riscv/generic"}
VENDOR_DIR_RENAMES = {"ky/x60": "spacemit/x60"}
# The mapfile regexes MatchIdPattern (common/cpu.cc) matches.
ID_PATTERN = re.compile(
    r"(?:(?:[^.()*+?{}|^$\\\[\]]|\[(?:\[:(?:xdigit|digit|alpha|alnum|upper|lower):\]|[^\[\]^])+\])[+*]?)+"
)


def fail(msg):
    sys.exit("gen_event_catalog: " + msg)


def parse_code(text, where):
    try:
        return int(text, 0)
    except (TypeError, ValueError):
        fail(f"{where}: code {text!r} is not a number")


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def entry_event(entry, where, topic):
    known = {"EventName", "EventCode", "ConfigCode", "BriefDescription", "PublicDescription"}
    extra = set(entry) - known
    if extra:
        fail(f"{where}: unknown keys {sorted(extra)}")
    name = entry.get("EventName")
    if not name:
        fail(f"{where}: entry without EventName")
    if "EventCode" in entry:
        config = parse_code(entry["EventCode"], f"{where} {name}")
    elif "ConfigCode" in entry:
        config = parse_code(entry["ConfigCode"], f"{where} {name}")
    else:
        fail(f"{where} {name}: neither EventCode nor ConfigCode")
    desc = entry.get("BriefDescription") or entry.get("PublicDescription") or ""
    return {"name": name, "config": config, "topic": topic, "desc": desc}


def load_tables(root):
    riscv = os.path.join(root, "riscv")
    arch_std = {}  # EventName -> event, from the arch-standard files
    tables = {}
    for fname, table in ARCH_STD.items():
        path = os.path.join(riscv, fname)
        events = [entry_event(e, path, os.path.splitext(fname)[0]) for e in read_json(path)]
        tables[table] = events
        for e in events:
            arch_std[e["name"]] = e
    for dirpath, dirnames, filenames in sorted(os.walk(riscv)):
        dirnames.sort()
        jsons = sorted(f for f in filenames if f.endswith(".json"))
        if dirpath == riscv or not jsons:
            continue
        table = os.path.relpath(dirpath, riscv)
        events = {}
        for fname in jsons:
            path = os.path.join(dirpath, fname)
            topic = os.path.splitext(fname)[0]
            for entry in read_json(path):
                if "ArchStdEvent" in entry:
                    std = arch_std.get(entry["ArchStdEvent"])
                    if std is None:
                        fail(f"{path}: ArchStdEvent {entry['ArchStdEvent']} is in no arch-standard table")
                    event = dict(std, topic=topic)
                else:
                    event = entry_event(entry, path, topic)
                old = events.get(event["name"].lower())
                if old and old["config"] != event["config"]:
                    fail(f"{path}: {event['name']} defined twice with different codes")
                events.setdefault(event["name"].lower(), event)  # exact repeats are harmless
        tables[table] = list(events.values())
    return tables


def load_mappings(root, tables):
    riscv = os.path.join(root, "riscv")
    mappings, skipped = [], []
    for fname in ("mapfile.csv", "mapfile-vendor-x60.csv"):
        with open(os.path.join(riscv, fname), encoding="utf-8") as f:
            for row in csv.reader(f):
                if not row or row[0].startswith("#"):
                    continue
                if len(row) < 4:
                    fail(f"{fname}: malformed row {row}")
                regex, table = row[0].strip(), row[2].strip()
                if not ID_PATTERN.fullmatch(regex):
                    fail(f"{fname}: regex {regex} is outside what agentd matches (common/cpu.h)")
                table = VENDOR_DIR_RENAMES.get(table, table)
                if table not in tables:
                    skipped.append(f"{fname}: {regex} -> {table}")
                    table = ""
                if any(m["table"] == table and m["regex"] == regex for m in mappings):
                    continue
                mappings.append({"regex": regex, "table": table, "source": fname})
    return mappings, skipped


def c_string(text):
    return json.dumps(text, ensure_ascii=True)


def main():
    if len(sys.argv) != 3:
        fail("usage: gen_event_catalog.py PMU_EVENTS_DIR OUTPUT.cc")
    root, out = sys.argv[1], sys.argv[2]
    tables = load_tables(root)
    # A core event named like an SBI firmware event must be that event: the catalog keeps one.
    firmware = {e["name"].lower(): e["config"] for e in tables["riscv/sbi-firmware"]}
    for table, events in tables.items():
        for e in events:
            code = firmware.get(e["name"].lower())
            if code is not None and code != e["config"]:
                fail(f"{table}: {e['name']} has code {e['config']:#x}, the SBI firmware event "
                     f"of that name {code:#x}")
    mappings, skipped = load_mappings(root, tables)
    lines = [
        "// Generated by scripts/gen_event_catalog.py from common/pmu-events. Do not edit.",
        "#include \"common/event_tables.h\"",
        "",
        "namespace ktune {",
        "namespace {",
        "",
    ]
    names = sorted(tables)
    for i, table in enumerate(names):
        lines.append(f"// {table}")
        lines.append(f"constexpr TableEvent kTable{i}[] = {{")
        for e in sorted(tables[table], key=lambda e: e["name"].lower()):
            lines.append(f"    {{{c_string(e['name'])}, 0x{e['config']:x}ull, {c_string(e['topic'])}, "
                         f"{c_string(e['desc'])}}},")
        lines.append("};")
        lines.append("")
    lines.append("constexpr EventTable kTables[] = {")
    for i, table in enumerate(names):
        lines.append(f"    {{{c_string(table)}, kTable{i}, sizeof kTable{i} / sizeof kTable{i}[0]}},")
    lines.append("};")
    lines.append("")
    for s in skipped:
        lines.append(f"// No table here, so generic events only: {s}")
    lines.append("constexpr CpuMapping kMappings[] = {")
    for m in mappings:
        lines.append(f"    {{{c_string(m['regex'])}, {c_string(m['table'])}}},  // {m['source']}")
    lines.append("};")
    lines += [
        "",
        "}  // namespace",
        "",
        "std::span<const EventTable> EventTables() { return kTables; }",
        "std::span<const CpuMapping> CpuMappings() { return kMappings; }",
        "",
        "}  // namespace ktune",
        "",
    ]
    write_if_changed(out, "\n".join(lines))


if __name__ == "__main__":
    main()
