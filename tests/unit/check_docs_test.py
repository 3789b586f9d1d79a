#!/usr/bin/env python3
"""Tests scripts/check_docs.py on the real tree: each kind of drift it must catch (a wrong folder
count, a wrong protocol version, a missing file, a function put in a file that does not name it),
written into docs/ARCHITECTURE.md's real text and into lines of its own, and lines that hold.
Prints each failed expectation and exits 1; silent and 0 when all hold."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import check_docs  # noqa: E402

WORDS = ["", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
         "Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen"]


def main():
    tree = check_docs.Tree(ROOT)
    failed = []

    def expect(text, wanted, why):
        problems = check_docs.check_text(tree, "doc.md", text)
        found = [p for p in problems if wanted in p] if wanted else problems
        if wanted and not found:
            failed.append(f"{why}: no problem naming '{wanted}' in {problems}")
        if not wanted and problems:
            failed.append(f"{why}: expected none, got {problems}")

    host_folders = len(tree.source_folders("host"))
    version = tree.protocol_version
    # Lines of their own.
    expect(f"### khost (host/)\n\n{WORDS[host_folders]} folders, cut by concern.", None,
           "the host folder count")
    expect(f"### khost (host/)\n\n{WORDS[host_folders - 1]} folders, cut by concern.",
           f"{WORDS[host_folders - 1]} folders of host/", "a wrong host folder count")
    expect(f"Protocol version {version}.", None, "the protocol version")
    expect(f"Protocol version {version - 1}.", f"Protocol version {version - 1}",
           "a wrong protocol version")
    expect("`ExecuteRun` (`cmd_run.cc`)", None, "a function where it is")
    expect("`PrepareAgent` (`cmd_run.cc`)", "puts PrepareAgent in cmd_run.cc",
           "a function put in the wrong file")
    expect("`RunSweep` in `host/measure/sweep.cc`", None, "a function in a path")
    expect("`MakeRunRequest` in `host/search/search.cc`", "puts MakeRunRequest",
           "a function put in the wrong path")
    expect("the sweep (`host/measure/sweep.cc`)", None, "a file that is there")
    expect("the sweep (`host/remote/sweep.cc`)", "names host/remote/sweep.cc", "a moved file")
    expect("`no_such_file.cc` holds it", "no_such_file.cc", "a file no folder holds")
    expect("`test_data/matrix_<rows>x<cols>_<idx>.txt`, bench/search_replay", None,
           "a pattern and a program built from its source")

    # The real ARCHITECTURE.md holds, and each drift written into it is caught.
    doc = (ROOT / "docs/ARCHITECTURE.md").read_text()
    expect(doc, None, "docs/ARCHITECTURE.md as it is")
    count = re.search(r"^(\w+) folders, cut by concern", doc, re.M)
    if not count:
        failed.append("docs/ARCHITECTURE.md: no host folder count to change")
    else:
        wrong = WORDS[WORDS.index(count.group(1)) + 1]
        expect(doc.replace(count.group(0), f"{wrong} folders, cut by concern"),
               f"{wrong} folders of host/", "ARCHITECTURE.md with a wrong folder count")
    said = f"Protocol version {version}"
    if said not in doc:
        failed.append(f"docs/ARCHITECTURE.md does not say '{said}'")
    expect(doc.replace(said, f"Protocol version {version + 1}"), f"Protocol version {version + 1}",
           "ARCHITECTURE.md with a wrong protocol version")
    for f in failed:
        print(f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
