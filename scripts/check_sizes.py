#!/usr/bin/env python3
"""Keeps khost's code in pieces a reader can hold: no host/ .cc file over 500 lines and no
function over 60 lines, counted from the line its signature starts on to its closing brace.
Prints each one over, with its length, and exits 1; silent and 0 when there is none.

A function is found as clang-format leaves one: a signature starting in column 0 (or 2, a member
defined in its class) and ending in '{', its body to the matching '}'. Tables and switches are
not set aside by rule: one that must stay whole is named in LONG with why."""
import pathlib
import re
import sys

MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 60
# "<path>:<function>": why it is one piece. None today.
LONG = {}

START = re.compile(r"^( {0,2})([A-Za-z_~].*)$")
NOT_A_FUNCTION = re.compile(r"(namespace|struct|class|enum|union|using|template|typedef|return|"
                            r"case|default|public|private|protected|extern)\b")


def functions(lines):
    """(first line number, length, name) of each function body in `lines`."""
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if not m or NOT_A_FUNCTION.match(m.group(2)) or lines[i].rstrip().endswith(";"):
            i += 1
            continue
        j = i
        while (j < len(lines) - 1 and j - i < 6 and not lines[j].rstrip().endswith(("{", ";"))):
            j += 1
        signature = " ".join(lines[i:j + 1])
        if not lines[j].rstrip().endswith("{") or "(" not in signature or \
                "=" in signature.split("(")[0]:
            i += 1
            continue
        depth, k = 0, j
        while k < len(lines):
            depth += lines[k].count("{") - lines[k].count("}")
            if depth <= 0:
                break
            k += 1
        name = signature.split("(")[0].split()[-1] if signature.split("(")[0].split() else "?"
        yield i + 1, k - i + 1, name
        i = k + 1


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    over = []
    for path in sorted((root / "host").rglob("*.cc")):
        rel = path.relative_to(root)
        lines = path.read_text().splitlines()
        if len(lines) > MAX_FILE_LINES:
            over.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})")
        for first, length, name in functions(lines):
            if length > MAX_FUNCTION_LINES and f"{rel}:{name}" not in LONG:
                over.append(f"{rel}:{first}: {name} is {length} lines (at most "
                            f"{MAX_FUNCTION_LINES})")
    for o in over:
        print(o)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
