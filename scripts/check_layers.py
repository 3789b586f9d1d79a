#!/usr/bin/env python3
"""Checks that khost's and agentd's folders depend on each other only the way
docs/ARCHITECTURE.md draws them: every #include "host/<folder>/..." or "agent/<folder>/..."
(or "agent/<file>", agentd's own top level), "common/..." or "protocol/..." in a folder's files
must name the folder itself or one it may use (common/ uses nothing else, protocol/ only
common/, every other folder both). And each folder's library (ktune_<folder>, in its
CMakeLists.txt) must name in its own target_link_libraries every library whose headers its
files include, rather than get them through another's PUBLIC links. Prints each include or
link that is wrong and exits 1; silent and 0 when there is none."""
import pathlib
import re
import sys

# folder -> the folders it may include from (besides itself, common/ and protocol/).
ALLOWED = {
    "common": set(),
    "protocol": {"common"},
    "host/util": set(),
    "host/events": {"host/util"},
    "host/results": {"host/events", "host/util"},
    "host/report": {"host/db", "host/results", "host/events", "host/util"},
    "host/remote": {"host/results", "host/events", "host/util"},
    "host/lava": {"host/remote", "host/results", "host/events", "host/util"},
    "host/db": {"host/results", "host/events", "host/util"},
    "host/measure": {"host/lava", "host/remote", "host/db", "host/results", "host/events", "host/util"},
    "host/tune": {"host/results", "host/events", "host/util"},
    "host/corpus": {"host/util"},
    "host/strategy": set(),
    "host/search": {"host/tune", "host/measure", "host/lava", "host/remote", "host/db", "host/strategy", "host/results",
                    "host/events", "host/util"},
    "host/roofline": {"host/tune", "host/measure", "host/report", "host/lava", "host/remote", "host/db",
                      "host/results", "host/events", "host/util"},
    "host/cli": {"host/roofline", "host/search", "host/strategy", "host/tune", "host/measure", "host/lava", "host/remote", "host/db",
                 "host/report", "host/corpus", "host/results", "host/events", "host/util"},
    # agentd: main.cc and options.{h,cc} -> server -> measure | store. Only measure/ calls
    # perf_event_open; store/ knows the store's files and nothing of measuring or serving.
    "agent/measure": set(),
    "agent/store": set(),
    "agent/server": {"agent/measure", "agent/store"},
    "agent": {"agent/server", "agent/store"},
}
# Every folder but these two may include common/ and protocol/.
BASE = {"common", "protocol"}
# The folder an include names: "host/cli/cli.h" -> host/cli, "agent/options.h" -> agent,
# "protocol/ktune.pb.h" -> protocol.
INCLUDE = re.compile(r'#include "((?:host|agent)(?:/[a-z_]+)?|common|protocol)/[a-z_.]+\.h"')
# The libraries a CMakeLists.txt links a target with: target_link_libraries(<target> ...).
LINK = re.compile(r"target_link_libraries\((\w+)([^)]*)\)")


def library(folder):
    """host/cli -> ktune_host_cli; common -> ktune_common."""
    return "ktune_" + folder.replace("/", "_")


def linked(root, folder):
    """The libraries folder's CMakeLists.txt links its library with, or None when it builds no
    library of its folder's name (agentd's top level: its options and the program)."""
    text = (root / folder / "CMakeLists.txt").read_text()
    if f"add_library({library(folder)} " not in text:
        return None
    names = set()
    for m in LINK.finditer(text):
        if m.group(1) == library(folder):
            names.update(m.group(2).split())
    return names


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    wrong = []
    for folder, allowed in ALLOWED.items():
        allowed = allowed if folder in BASE else allowed | BASE
        used = {}  # folder included -> where first
        for path in sorted((root / folder).glob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) == folder:
                    continue
                where = f"{path.relative_to(root)}:{number}"
                used.setdefault(m.group(1), where)
                if m.group(1) not in allowed:
                    wrong.append(f"{where}: {folder} may not use {m.group(1)}")
        names = linked(root, folder)
        for dep, where in sorted(used.items()):
            if names is not None and library(dep) not in names:
                wrong.append(f"{folder}/CMakeLists.txt: {library(folder)} does not link "
                             f"{library(dep)}, which {where} includes")
    sources = [*root.glob("host/*/*.cc"), *root.glob("agent/*.cc"), *root.glob("agent/*/*.cc")]
    for folder in sorted({str(p.parent.relative_to(root)) for p in sources}):
        if folder not in ALLOWED:
            wrong.append(f"{folder}: a folder the layering does not know (add it to "
                         f"scripts/check_layers.py and docs/ARCHITECTURE.md)")
    for w in wrong:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
