#!/usr/bin/env python3
"""check_every_format.py LIMITER [--html-in-chromium] RECORD...

Reports RECORD (one record, or several: a job's ranks) as a user would and fails, naming each
problem, where a report of that kind of record says nothing or says it wrong:

- the header counts what the records hold (launches with counters, kernels on the timeline,
  PC samples), never "0 launches of 0 kernels";
- the export's line says what went into the database, never "0 launches of 0 kernels";
- no section prints empty: no title over nothing (or over "no launches") in text and Markdown,
  no CSV of a header alone, no empty section of the JSON (but the lists its schema always has,
  ALWAYS_THERE), no empty table, list or heading in the HTML, and the SQLite export holds the
  records' launches, timeline events and sampled kernels;
- a record without a timeline ends with the one-line hint on how to get the program verdict
  (text, Markdown, HTML), and one with a timeline does not;
- two kernels never print the same name (the JSON's display names, the HTML's);
- `-k` that matches nothing exits 2 naming the closest printed names.

Text, Markdown, CSV, JSON and SQLite by default; with --html-in-chromium the HTML as headless
Chromium renders it (exit 77, skip, without Chromium).
"""
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

problems = []


def fail(what):
    problems.append(what)
    print("FAIL: " + what)


def read_record(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def holdings(paths):
    """What the records hold, counted from them: launches, timeline kernels, PC samples, names."""
    held = {"launches": 0, "timeline_kernels": 0, "timelines": 0, "samples": 0, "stall_kernels": 0, "names": set()}
    for path in paths:
        record = read_record(path)
        launches = record.get("launches") or []
        held["launches"] += len(launches)
        held["names"].update(launch["name"] for launch in launches)
        events = (record.get("timeline") or {}).get("events") or []
        kernels = [e for e in events if e.get("kind") == "kernel"]
        held["timeline_kernels"] += len(kernels)
        held["timelines"] += bool(record.get("timeline"))
        held["names"].update(e["name"] for e in kernels)
        stalls = record.get("stalls") or {}
        held["samples"] += sum(k.get("samples", 0) for k in stalls.get("kernels") or [])
        held["stall_kernels"] += len(stalls.get("kernels") or [])
        held["names"].update(k["name"] for k in stalls.get("kernels") or [])
    return held


def count_text(n):
    return f"{n:,}"


def run(limiter, args, expect=0):
    result = subprocess.run([limiter, *args], capture_output=True, text=True)
    if result.returncode != expect:
        fail(f"limiter {' '.join(args)} exited {result.returncode}, expected {expect}: {result.stderr.strip()[:300]}")
    return result


def check_header(text, held, ranks):
    header = text.split("\n\n")[0]
    for nothing in (r"\b0 launches\b", r"\bof 0 kernels\b", r"(?<![\d.,])0\.0+ ns\b", r"\bno launches\b",
                    r"time by verdict:\s*$"):
        if re.search(nothing, header):
            fail(f"the header counts nothing ({nothing}) though the records hold {held['launches']} launches, "
                 f"{held['timeline_kernels']} kernels on timelines, {held['samples']} PC samples:\n{header}")
    # Each thing the records hold is counted in the header, in the words a reader can check.
    wanted = []
    if held["samples"] and not held["launches"] and not held["timeline_kernels"]:
        wanted.append(count_text(held["samples"]))
    if held["launches"] and not held["timeline_kernels"] and not ranks:
        wanted.append(count_text(held["launches"]))
    if held["timeline_kernels"] and not ranks:
        wanted.append(count_text(held["timeline_kernels"]))
    for words in wanted:
        if words not in header:
            fail(f"the header does not say '{words}' (what the record holds):\n{header}")


def check_text_sections(text, fmt):
    lines = text.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        title = line.rstrip()
        if fmt == "text" and title.endswith(":") and not title.startswith(" "):
            rest = [l for l in lines[i + 1:] if l.strip()]
            if not rest or (rest[0].rstrip().endswith(":") and not rest[0].startswith(" ")):
                fail(f"{fmt}: the section '{title}' is empty")
        if fmt == "md" and re.match(r"#+ ", title):
            rest = [l for l in lines[i + 1:] if l.strip()]
            if not rest or re.match(r"#+ ", rest[0]):
                fail(f"{fmt}: the section '{title}' is empty")
        if fmt == "md" and re.match(r"^\|(:?-+:?\|)+$", title):
            if i + 1 >= len(lines) or not lines[i + 1].startswith("|"):
                fail(f"{fmt}: the table under '{lines[i - 1][:60]}' has no row")


def check_hint(text, fmt, held):
    last = [l for l in text.split("\n") if l.strip()][-1]
    hint = {"text": "hint: no timeline", "md": "> hint: no timeline"}[fmt]
    has_hint = last.startswith(hint)
    if held["timelines"] == 0 and not has_hint:
        fail(f"{fmt}: no timeline in the records, but the report does not end with the hint: '{last}'")
    if held["timelines"] > 0 and hint.split("hint: ")[1] in text:
        fail(f"{fmt}: the records have a timeline, but the report says they have none")


# The JSON's lists that are always there, empty or not, as its schema documents them (docs/guide/reports.md):
# the launches with counters, the launches missed and, of ranks, the notes on the set.
ALWAYS_THERE = {"kernels", "missed", "notes"}


def check_json(text, held, ranks):
    report = json.loads(text)
    for key, value in report.items():
        if (value == [] or value == {}) and key not in ALWAYS_THERE:
            fail(f"json: the section '{key}' is empty")
    printed = printed_names(report)
    for shown, names in printed.items():
        if len(names) > 1:
            fail(f"json: {len(names)} kernels print as '{shown}': {sorted(names)}")
    return printed


def printed_names(report):
    """Every printed name in the JSON report (an entry with "name" and "display_name", at any depth:
    groups, kernels over the ranks, stalled kernels), each with the kernels printed under it."""
    printed = {}
    def visit(value):
        if isinstance(value, dict):
            if isinstance(value.get("display_name"), str) and value.get("display_name") and "name" in value:
                printed.setdefault(value["display_name"], set()).add(value["name"])
            for inner in value.values():
                visit(inner)
        elif isinstance(value, list):
            for inner in value:
                visit(inner)
    visit(report)
    return printed


def check_csv(text):
    rows = [r for r in text.split("\n") if r.strip()]
    if len(rows) < 2:
        fail("csv: a header and no row")


def check_sqlite(limiter, records, held, work):
    db = os.path.join(work, "export.sqlite")
    for record in records:  # an export is of one record
        if os.path.exists(db):
            os.remove(db)
        said = run(limiter, ["export", record, "--format", "sqlite", "-o", db]).stderr
        if re.search(r"\b0 launches\b|\bof 0 kernels\b", said):
            fail(f"export of {record} counts nothing: {said.strip()}")
        one = holdings([record])
        with sqlite3.connect(db) as connection:
            count = lambda table: connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table, expected in (("run", ">0"), ("launches", len(read_record(record).get("launches") or [])),
                                    ("stalls", None if not one["stall_kernels"] else ">0"),
                                    ("timeline", None if not one["timeline_kernels"] else ">0")):
                if expected is None:
                    continue
                got = count(table)
                if (expected == ">0" and got == 0) or (expected != ">0" and got != expected):
                    fail(f"sqlite of {record}: table {table} has {got} rows, expected {expected}")


def check_k_selects_nothing(limiter, records, printed):
    if not printed:
        return
    name = sorted(printed)[0]
    word = re.match(r"[A-Za-z_][A-Za-z0-9_]{2,}", name)
    if not word:
        return
    pattern = word.group(0) + "qz"  # a typo of a printed name: matches nothing
    result = run(limiter, ["report", *records, "-k", pattern], expect=2)
    closest = re.search(r"selects none of .*; closest: (.*)$", result.stderr.strip().split("\n")[-1])
    if not closest:
        fail(f"-k {pattern}: no 'closest:' names in: {result.stderr.strip()[:300]}")
    elif word.group(0) not in closest.group(1):
        fail(f"-k {pattern}: the closest names do not include a name with '{word.group(0)}': {closest.group(1)}")


def chromium_dom(html_path, work):
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if not browser:
        print("SKIP: no Chromium found (scripts/install-deps.sh installs Debian's chromium)")
        sys.exit(77)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    for attempt in (1, 2):  # headless Chromium now and then hangs after --dump-dom: one more try
        try:
            result = subprocess.run([browser, *flags, f"--user-data-dir={work}/profile-{attempt}", "--dump-dom",
                                     "file://" + os.path.abspath(html_path)], capture_output=True, text=True, timeout=60)
            if result.returncode == 0 and "</html>" in result.stdout:
                return result.stdout
        except subprocess.TimeoutExpired:
            pass
        print(f"note: {browser} did not finish (try {attempt} of 2)")
    fail(f"Chromium rendered nothing of {html_path}")
    return ""


def check_html(dom, held):
    for pattern, what in ((r"<tbody>\s*</tbody>", "an empty table"), (r"<ul[^>]*>\s*</ul>", "an empty list"),
                          (r"<h2>([^<]*)</h2>\s*<h2>", "a heading over nothing"),
                          (r"<h2>([^<]*)</h2>\s*</body>", "a heading over nothing"),
                          (r"<figure>\s*<figcaption>[^<]*</figcaption>\s*</figure>", "an empty figure")):
        for match in re.finditer(pattern, dom):
            fail(f"html: {what}: {match.group(0)[:120]}")
    for nothing in (r"\b0 launches of 0 kernels\b", r">0\.0 ns of kernel time", r'<div class="stat"><b>(0|0\.0 ns)</b>'):
        for match in re.finditer(nothing, dom):
            fail(f"html: the page counts nothing: {match.group(0)}")
    for chart_id, chart in re.findall(r'<svg id="([^"]*)"(.*?)</svg>', dom, re.S):
        if chart_id == "utilization-map" and '<circle class="kernel' not in chart:
            fail("html: a utilisation map without a kernel")
        if 'class="tick"' in chart and chart_id != "utilization-map" and '<rect class="bar' not in chart:
            fail(f"html: the chart #{chart_id} has no bar")
    notes = re.findall(r'<p class="note">([^<]*)</p>', dom)
    hinted = bool(notes) and notes[-1].startswith("hint: no timeline") and dom.rfind(notes[-1]) > dom.rfind("</table>")
    if held["timelines"] == 0 and not hinted:
        fail("html: no timeline in the records, but the page does not end with the hint")
    if held["timelines"] > 0 and "hint: no timeline" in dom:
        fail("html: the records have a timeline, but the page says they have none")
    # Each printed name stands for one kernel: a name's full form on hover is always the same.
    titles = {}
    for full, shown in re.findall(r'<code title="([^"]*)">([^<]*)</code>', dom):
        titles.setdefault(shown, set()).add(full)
    for shown, fulls in titles.items():
        if len(fulls) > 1:
            fail(f"html: {len(fulls)} kernels print as '{shown}'")


def main():
    args = sys.argv[1:]
    html = "--html-in-chromium" in args
    args = [a for a in args if a != "--html-in-chromium"]
    limiter, records = os.path.abspath(args[0]), args[1:]
    held = holdings(records)
    ranks = len(records) > 1
    work = tempfile.mkdtemp()
    try:
        if html:
            page = os.path.join(work, "report.html")
            run(limiter, ["report", *records, "--format", "html", "-o", page])
            check_html(chromium_dom(page, work), held)
        else:
            text = run(limiter, ["report", *records]).stdout
            check_header(text, held, ranks)
            for fmt in ("text", "md"):
                out = text if fmt == "text" else run(limiter, ["report", *records, "--format", "md"]).stdout
                check_text_sections(out, fmt)
                if re.search(r"\bno launches\b|Time by verdict:\*\*\s*$", out, re.M):
                    fail(f"{fmt}: a section that says 'no launches'")
                check_hint(out, fmt, held)
            check_csv(run(limiter, ["report", *records, "--format", "csv"]).stdout)
            printed = check_json(run(limiter, ["report", *records, "--format", "json"]).stdout, held, ranks)
            check_sqlite(limiter, records, held, work)
            check_k_selects_nothing(limiter, records, printed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(problems)} problem(s) in the reports of {' '.join(records)}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
