#!/usr/bin/env python3
"""Checks that khost's and agentd's folders depend on each other only the way
docs/ARCHITECTURE.md draws them: every #include "host/<folder>/..." or "agent/<folder>/..."
(or "agent/<file>", agentd's own top level) in a folder's files must name the folder itself or
one it may use. Prints each include that points the wrong way and exits 1; silent and 0 when
there is none."""
import pathlib
import re
import sys

# folder -> the folders it may include from (besides itself, common/ and protocol/).
ALLOWED = {
    "host/util": set(),
    "host/events": {"host/util"},
    "host/results": {"host/events", "host/util"},
    "host/report": {"host/results", "host/strategy", "host/events", "host/util"},
    "host/remote": {"host/results", "host/events", "host/util"},
    "host/measure": {"host/remote", "host/results", "host/events", "host/util"},
    "host/tune": {"host/results", "host/events", "host/util"},
    "host/corpus": {"host/util"},
    "host/strategy": set(),
    "host/search": {"host/tune", "host/measure", "host/remote", "host/strategy", "host/results", "host/events",
                    "host/util"},
    "host/cli": {"host/search", "host/strategy", "host/tune", "host/measure", "host/remote", "host/report",
                 "host/corpus", "host/results", "host/events", "host/util"},
    # agentd: main.cc and options.{h,cc} -> server -> measure | store. Only measure/ calls
    # perf_event_open; store/ knows the store's files and nothing of measuring or serving.
    "agent/measure": set(),
    "agent/store": set(),
    "agent/server": {"agent/measure", "agent/store"},
    "agent": {"agent/server", "agent/store"},
}
# The folder an include names: "host/cli/cli.h" -> host/cli, "agent/options.h" -> agent.
INCLUDE = re.compile(r'#include "((?:host|agent)(?:/[a-z_]+)?)/[a-z_]+\.h"')


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    wrong = []
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).glob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) != folder and m.group(1) not in allowed:
                    wrong.append(f"{path.relative_to(root)}:{number}: {folder} may not use "
                                 f"{m.group(1)}")
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
