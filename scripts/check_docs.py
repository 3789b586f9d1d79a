#!/usr/bin/env python3
"""Checks that the docs name only what the code has, as a link checker fails on a dead link.
Reads README.md and docs/*.md and reports, one line each (file:line: what), and exits 1 when any:

- a path of the tree (host/..., agent/..., common/..., protocol/..., tests/..., scripts/...,
  docs/..., kernels/..., bench/..., toolchains/..., test_data/...) that does not exist, and a
  source file named alone (`cmd_run.cc`) that no folder holds;
- a function or type said to be in a file (`Name` (`path/file.cc`...), `Name` in `file.cc`)
  that the file does not name;
- a folder count ("Eleven folders") under a heading that names a folder, "### khost (host/)",
  that is not the number of that folder's source folders (the folder itself counted when it holds
  sources);
- "Protocol version N" other than protocol/frame_codec.h's kProtocolVersion.

scripts/check_docs.py [--root DIR]: silent and 0 when the docs hold."""
import argparse
import pathlib
import re
import sys

TOP = ("host", "agent", "common", "protocol", "tests", "scripts", "docs", "kernels", "bench",
       "toolchains", "test_data")
# A path of the tree, not inside a longer path or a URL: host/remote/sweep.cc, agent/measure/.
PATH = re.compile(r"(?<![\w./<>-])((?:%s)/[\w./-]*)" % "|".join(TOP))
SOURCE_EXT = (".cc", ".h", ".py", ".sh", ".proto", ".cmake", ".c")
# A backticked name, then where it is: `Name` (`path` or `Name` in `path`.
LOCATED = re.compile(r"`([A-Za-z_][\w]*(?:::[\w]+)*)(?:\(\))?` (?:\((?:also )?|in )`([\w./-]+)`")
# A C++ file named alone (other projects' scripts, compare.py, are named alone too).
BARE_FILE = re.compile(r"`([\w-]+\.(?:cc|h))`")
# What khost writes where a doc shows it, not in the tree.
GENERATED = {"kernels/matmul/matmul_dispatch.h"}
COUNT = re.compile(r"\b(One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|"
                   r"Thirteen|Fourteen|Fifteen) folders\b")
HEADING_FOLDER = re.compile(r"^#+ .*\((\w+)/\)")
PROTOCOL = re.compile(r"Protocol version (\d+)")
NUMBERS = {w: i + 1 for i, w in enumerate(
    "One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Thirteen Fourteen "
    "Fifteen".split())}


class Tree:
    def __init__(self, root):
        self.root = root
        self.by_name = {}
        for top in TOP:
            for p in (root / top).rglob("*"):
                if p.is_file():
                    self.by_name.setdefault(p.name, []).append(p)
        m = re.search(r"kProtocolVersion = (\d+);", (root / "protocol/frame_codec.h").read_text())
        self.protocol_version = int(m.group(1))

    def files_named(self, name):
        """The files a doc means by `name`: a path of the tree, or a file name alone."""
        if "/" in name:
            p = self.root / name
            return [p] if p.is_file() else []
        return self.by_name.get(name, [])

    def source_folders(self, folder):
        """The folders of `folder` (itself included) that hold .cc or .h files."""
        base = self.root / folder
        found = {p.parent for p in base.rglob("*") if p.suffix in (".cc", ".h")}
        return sorted(found)


def defines(path, name):
    text = path.read_text(errors="replace")
    return re.search(r"\b%s\b" % re.escape(name.split("::")[-1]), text) is not None


def check_text(tree, where, text):
    """Every problem of one doc's text, as "where:line: what"."""
    problems = []
    heading_folder = None
    for number, line in enumerate(text.splitlines(), 1):
        at = f"{where}:{number}"
        if line.startswith("#"):
            m = HEADING_FOLDER.match(line)
            heading_folder = m.group(1) if m else None
        for m in PATH.finditer(line):
            path = m.group(1).rstrip(".,;:")
            # A pattern (test_data/matrix_<rows>..., test_data/M=64,...) names no one path.
            if line[m.end():m.end() + 1] in ("<", "{", "=", "*") or path in GENERATED:
                continue
            # A program built from its source: bench/search_replay from search_replay.cc.
            built = [tree.root / (path + ext) for ext in (".c", ".cc")]
            if not (tree.root / path).exists() and not any(b.is_file() for b in built):
                problems.append(f"{at}: names {path}, which the tree does not have")
        for m in BARE_FILE.finditer(line):
            if not tree.files_named(m.group(1)):
                problems.append(f"{at}: names {m.group(1)}, which no folder holds")
        for m in LOCATED.finditer(line):
            name, file = m.group(1), m.group(2)
            if not file.endswith(SOURCE_EXT):
                continue
            files = tree.files_named(file)
            if files and not any(defines(f, name) for f in files):
                problems.append(f"{at}: puts {name} in {file}, which does not name it")
        for m in COUNT.finditer(line):
            if heading_folder is None:
                continue
            said = NUMBERS[m.group(1)]
            have = len(tree.source_folders(heading_folder))
            if said != have:
                problems.append(f"{at}: says {m.group(0)} of {heading_folder}/, which has {have}")
        for m in PROTOCOL.finditer(line):
            if int(m.group(1)) != tree.protocol_version:
                problems.append(f"{at}: says {m.group(0)}, the code's is "
                                f"{tree.protocol_version} (protocol/frame_codec.h)")
    return problems


def check_tree(root):
    tree = Tree(root)
    problems = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        problems += check_text(tree, str(doc.relative_to(root)), doc.read_text())
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    args = parser.parse_args()
    problems = check_tree(pathlib.Path(args.root))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
