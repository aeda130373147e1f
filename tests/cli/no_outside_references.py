#!/usr/bin/env python3
"""Nothing in the repository points outside it.

    no_outside_references.py [--repo ROOT]

Fails, naming file and line, when a tracked file holds a reference a reader of this repository
cannot follow: a path into the shared folder beside the checkout, a document that is not in
the tree (the method or design notes by their old file names, the CUPTI notes), or a tracker's
issue number (the word and a number) instead of what it was. The docs/ pages are where such text goes:
`docs/method.md §Bandwidth`, `docs/design.md §6`.

The raw logs under bench/results/*-raw/ keep their text verbatim (tool output, scripts as run)
and are not read. A phrase about issue utilisation ("issue 73 %", "issue 0.59", "issues 2 per
cycle") is not a reference and passes.
"""

import argparse
import os
import re
import subprocess
import sys

# Written so that this file does not match itself.
FORBIDDEN = [
    (re.compile(r"\.\./shared\b"), "a path outside the repository"),
    (re.compile(r"\bMETHOD\.md\b"), "a method note that is not in the repository (docs/method.md is)"),
    (re.compile(r"\bDESIGN(\.md)? §"), "a design note by its old name (docs/design.md §N is)"),
    (re.compile(r"\bCUPTI\.md\b"), "CUPTI notes that are not in the repository (docs/design.md §4 holds the collector)"),
    (re.compile(r"\b[Ii]ssues? #?[0-9]+(?![0-9]*(?:\.[0-9]| ?%| per\b))"),
     "an issue number (say what it was instead)"),
]
SKIPPED = re.compile(r"^bench/results/[^/]+-raw/")


def tracked_files(repo):
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        return [p for p in out.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (a source archive): every file but build folders and hidden ones.
        found = []
        for root, dirs, files in os.walk(repo):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            found += [os.path.relpath(os.path.join(root, f), repo) for f in files]
        return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = parser.parse_args()
    repo = os.path.realpath(args.repo)
    failures, read = [], 0
    for path in tracked_files(repo):
        if SKIPPED.match(path):
            continue
        try:
            with open(os.path.join(repo, path), "rb") as f:
                data = f.read()
        except OSError:
            continue            # listed by git but deleted in the work tree
        if b"\0" in data[:8192]:
            continue            # binary
        read += 1
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
            for pattern, why in FORBIDDEN:
                match = pattern.search(line)
                if match:
                    failures.append(f"{path}:{number}: '{match.group(0)}': {why}")
    if failures:
        print(f"FAIL: {len(failures)} reference(s) that point outside the repository:")
        print("\n".join(f"  {f}" for f in failures))
        return 1
    print(f"OK: {read} files, none points outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
