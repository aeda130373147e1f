#!/usr/bin/env python3
"""The README and the docs pages kept true by a test: examples, synopsis, links and counts.

    readme_test.py --limiter BUILD/cli/limiter [--repo ROOT] [--readme FILE] [examples|synopsis|links|counts ...]

--readme names the page (README.md by default; any docs/ page); each check below reads it.

examples  Every command of the README's ```sh blocks and of its ``` transcripts (`$ command`
          followed by output) runs with the built limiter (`scripts/limiter` stands for it),
          in a scratch folder that mirrors the repository root (links to its top-level entries),
          so inputs resolve as from the root and outputs stay out of the tree. Then:
          - a transcript's output lines are one excerpt of what the command prints (stdout, then
            stderr), line for line from the output's first line: a line `...` alone stands for
            lines left out (also at the end, where the output goes on), and a line ending in
            `...` matches any output line that starts with the text before it;
          - in a ```sh block, the lines `#  TEXT` (a hash and two spaces) under a command are
            lines of its output, in that order, not necessarily adjacent; `#  ` is cut off, the
            rest is compared as it stands (keep the output's indentation), `...` at the end as
            above; a comment line `# text` (one space) is prose and is not checked;
          - the exit code is 0, or N where the command's trailing comment says `exit code N`.
          Lines are compared exactly after trailing spaces are trimmed.
          Commands that cannot run here are skipped by a rule of SKIP_RULES, each printed with its
          rule: `limiter run`, `limiter kernels` without --list, `limiter calibrate`, ncu and job
          launchers need a GPU; scripts/test.sh is the CI run itself; and a command that reads an
          input that is not in the repository, after a skipped command of its block that writes
          it. A command no rule covers and that is not limiter's fails the test.
synopsis  The page's table under "Subcommands" (docs/guide/commands.md) against `limiter --help`
          and `limiter CMD --help`: one row per command; every option --help lists (but --help)
          is named in the row's synopsis (short or long form), every option the synopsis names
          exists, and it is shown with a value exactly when --help says it takes one.
links     Every relative link of the prose, `[text](path#anchor)`, leads to a file or folder of the
          repository, and its anchor (or a bare `#anchor` on the page itself) to a heading of that
          Markdown file, as GitHub derives anchors from headings. Links to http(s) are not fetched.
counts    Every count the page states about the kernel suite (in a section whose heading names the
          kernel suite, and in any sentence that names it) against `limiter kernels --list`, and
          the counts of its committed recordings against `limiter report RECORDING`. A count in a
          form the test does not know fails, so none goes unchecked; so does a page checked for
          counts that states none.

Failures name the page's line and the command that disagree. Exit code 0 when all pass.
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

import doc_links

FAILURES = []
SHELL_BLOCKS = ("sh", "bash", "shell", "console", "")
TIMEOUT_S = 60


def fail(where, message):
    FAILURES.append(f"{where}: {message}")


# ----------------------------------------------------------------------------- the README


class Readme:
    def __init__(self, path):
        self.path = path
        self.name = os.path.relpath(path)
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.blocks = []      # (language, first line number, [(line number, text)])
        self.prose = []       # (line number, text, heading) outside fences
        heading = ""
        fence = None
        for number, text in enumerate(self.lines, start=1):
            if text.startswith("```"):
                if fence is None:
                    fence = (text[3:].strip(), number, [])
                else:
                    self.blocks.append(fence)
                    fence = None
                continue
            if fence is not None:
                fence[2].append((number, text))
                continue
            match = re.match(r"^(#{1,6})\s+(.*)$", text)
            if match:
                heading = match.group(2).strip()
            self.prose.append((number, text, heading))
        if fence is not None:
            fail(f"{self.name}:{fence[1]}", "code block never closed")

    def at(self, number):
        return f"{self.name}:{number}"


def run(argv_or_line, cwd, env, shell=False):
    try:
        done = subprocess.run(argv_or_line, cwd=cwd, env=env, shell=shell, executable="/bin/bash" if shell else None,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {TIMEOUT_S} s"
    return (done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


class Limiter:
    """The built binary and what its --help says."""

    def __init__(self, binary, repo):
        self.binary = os.path.abspath(binary)
        self.repo = repo
        self.env = dict(os.environ, CUDA_VISIBLE_DEVICES="", NO_COLOR="1", LC_ALL="C.UTF-8")
        self._help = {}

    def __call__(self, *args):
        return run([self.binary, *args], self.repo, self.env)

    def commands(self):
        rc, out, err = self("--help")
        if rc != 0:
            fail("limiter --help", f"exit code {rc}: {err.strip()}")
        listed, in_list = [], False
        for line in out.splitlines():
            if line.strip() == "commands:":
                in_list = True
                continue
            match = re.match(r"^  ([a-z]+)  ", line)
            if in_list and match:
                listed.append(match.group(1))
        return listed

    def options(self, command):
        """{option spelling: (canonical id, takes a value)} from `limiter COMMAND --help`."""
        if command not in self._help:
            rc, out, err = self(command, "--help")
            options = {}
            if rc != 0:
                fail(f"limiter {command} --help", f"exit code {rc}: {(out + err).strip()[:300]}")
            for line in out.splitlines():
                # Boost.Program_options: "  -o [ --output ] arg (=x)   text", "  --peaks NAME   text",
                # "  --launches   text": the option column ends at two spaces; what follows the
                # names in it is the value (a flag has none).
                match = re.match(r"^  (-[A-Za-z0-9])(?: \[ (--[\w-]+) \])?(.*)$", line) or \
                        re.match(r"^  (--[\w-]+)()(.*)$", line)
                if not match:
                    continue
                names = [n for n in (match.group(1), match.group(2)) if n]
                value = re.split(r"\s{2,}", match.group(3).strip(), maxsplit=1)[0] if match.group(3).startswith(" ") \
                    and not match.group(3).startswith("  ") else ""
                for name in names:
                    options[name] = (names[-1], bool(value))
            self._help[command] = options
        return self._help[command]


# ----------------------------------------------------------------------------- a: examples


# Commands that cannot run in a test without a GPU, or at all from inside one: each with the
# reason printed beside every command it skips. A command that is not limiter's and that no
# rule names fails the test (a new kind of example needs a rule here, or a way to run).
SKIP_RULES = [
    ("limiter run", lambda argv, line: re.search(r"(^|\s)(scripts/)?limiter run(\s|$)", line),
     "profiles an application on a GPU (CUPTI)"),
    ("limiter kernels", lambda argv, line: limiter_subcommand(argv) == "kernels" and "--list" not in argv,
     "runs the kernel suite on a GPU (only --list needs none)"),
    ("limiter calibrate", lambda argv, line: limiter_subcommand(argv) == "calibrate",
     "measures this GPU's peaks"),
    ("ncu", lambda argv, line: argv[0] == "ncu", "Nsight Compute profiles on a GPU"),
    ("job launcher", lambda argv, line: argv[0] in ("mpirun", "srun", "torchrun"), "starts a GPU job"),
    ("scripts/test.sh", lambda argv, line: argv[0] == "scripts/test.sh",
     "builds everything and runs every test, this one included (the CI run itself)"),
]
# And: a command that reads an input which is not in the repository, after a skipped command
# of the same block (which would have written it), is skipped naming that command.


def limiter_subcommand(argv):
    if argv and argv[0] in ("limiter", "scripts/limiter") and len(argv) > 1:
        return argv[1]
    return None


def split_comment(line):
    """The command and its trailing comment (a # after whitespace, outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def segments(argv):
    """A command line's commands, split at && || ; |."""
    part = []
    for token in argv:
        if token in ("&&", "||", ";", "|"):
            if part:
                yield part
            part = []
        else:
            part.append(token)
    if part:
        yield part


def inputs_and_outputs(limiter, argv):
    """(inputs, outputs) of one command: positional arguments; -o, --record, --save-raw, > targets."""
    inputs, outputs = [], []
    command = limiter_subcommand(argv)
    takes_value = {}
    if command:
        takes_value = {name: value for name, (_, value) in limiter.options(command).items()}
        rest = argv[2:]
    else:
        rest = argv[1:]
    i = 0
    while i < len(rest):
        token = rest[i]
        if token == "--":
            break
        if token in (">", ">>", "2>"):
            if i + 1 < len(rest):
                outputs.append(rest[i + 1])
            i += 2
            continue
        if token.startswith("-"):
            name = token.split("=", 1)[0]
            value = None
            if "=" in token:
                value = token.split("=", 1)[1]
            elif takes_value.get(name, not command) and i + 1 < len(rest):  # other tools: assume a value
                value = rest[i + 1]
                i += 1
            if value is not None and name in ("-o", "--output", "--record", "--save-raw"):
                outputs.append(value)
            i += 1
            continue
        if command:
            inputs.append(token)
        i += 1
    return inputs, outputs


class Example:
    def __init__(self, number, line):
        self.number = number
        self.command, self.comment = split_comment(line)
        match = re.search(r"\bexit code (\d+)\b", self.comment)
        self.exit_code = int(match.group(1)) if match else 0
        self.expected = []        # (line number, text)
        self.contiguous = False   # a transcript: one excerpt of the output

    def argv(self):
        try:
            return shlex.split(self.command)
        except ValueError as error:
            return [f"<{error}>"]


def parse_examples(readme):
    """The README's runnable examples, block by block."""
    result = []
    for language, first, lines in readme.blocks:
        if language not in SHELL_BLOCKS:
            continue
        examples = []
        if any(text.startswith("$ ") for _, text in lines):            # a transcript
            for number, text in lines:
                if text.startswith("$ "):
                    examples.append(Example(number, text[2:]))
                    examples[-1].contiguous = True
                elif examples:
                    examples[-1].expected.append((number, text.rstrip()))
            for example in examples:
                while example.expected and example.expected[-1][1] == "":
                    example.expected.pop()
        elif language != "":                                            # a ```sh block
            current = None
            for number, text in lines:
                if text.startswith("#  ") and current is not None:
                    current.expected.append((number, text[3:].rstrip()))
                elif text.startswith("#") or not text.strip():
                    current = None
                else:
                    current = Example(number, text)
                    examples.append(current)
        if examples:
            result.append((first, examples))
    return result


def matches(expected, actual):
    actual = actual.rstrip()
    if expected.endswith("..."):
        return actual.startswith(expected[:-3])
    return expected == actual


def closest(expected, output):
    """The output line most like the expected one, to show beside a failure."""
    import difflib
    best = difflib.get_close_matches(expected.rstrip(". "), [l.rstrip() for l in output], n=1, cutoff=0.5)
    return f"\n      closest output line: '{best[0]}'" if best else ""


def check_transcript(readme, example, output, what):
    """One excerpt of the output from its first line; '...' lines stand for lines left out."""
    position = 0
    anchored = True          # the next README line must be output line `position`
    for number, text in example.expected:
        if text.strip() == "...":
            anchored = False
            continue
        if anchored and position < len(output) and matches(text, output[position]):
            position += 1
            continue
        found = next((i for i in range(position, len(output)) if matches(text, output[i])), None)
        if found is None:
            earlier = any(matches(text, line) for line in output[:position])
            fail(readme.at(number), f"'{text}' is not in the output of {what}"
                                    + (" after the lines shown above it" if earlier else closest(text, output)))
            if anchored:      # taken for a changed line: the next README line is the next output line
                position += 1
            continue
        if anchored:
            shown = f"'{output[position].rstrip()}'" if position < len(output) else "the end of the output"
            fail(readme.at(number), f"'{text}' is line {found + 1} of what {what} prints, but the README "
                                    f"shows it as line {position + 1}, which is {shown}: lines left out "
                                    f"need a '...' line")
        position = found + 1
        anchored = True


def check_comments(readme, example, stdout, stderr, what):
    """`#  ` lines: each in the output, in this order."""
    output = stdout + stderr
    position = 0
    for number, text in example.expected:
        found = next((i for i in range(position, len(output)) if matches(text, output[i])), None)
        if found is None:
            earlier = any(matches(text, line) for line in output)
            fail(readme.at(number), f"'{text}' is not in the output of {what}"
                                    + (" after the lines shown above it" if earlier else closest(text, output)))
            continue
        position = found + 1


def check_examples(readme, limiter):
    scratch_root = tempfile.TemporaryDirectory(prefix="limiter-readme-")
    bin_dir = os.path.join(scratch_root.name, "bin")
    os.mkdir(bin_dir)
    os.symlink(limiter.binary, os.path.join(bin_dir, "limiter"))
    env = dict(limiter.env, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    ran = skipped = 0
    for first, examples in parse_examples(readme):
        scratch = os.path.join(scratch_root.name, f"block-{first}")
        os.mkdir(scratch)
        for entry in os.listdir(limiter.repo):
            if not entry.startswith("."):
                os.symlink(os.path.join(limiter.repo, entry), os.path.join(scratch, entry))
        skipped_before = []    # (example, outputs) skipped earlier in this block
        for example in examples:
            where = readme.at(example.number)
            what = f"`{example.command}` ({where})"
            argv = example.argv()
            reason = None
            for part in segments(argv):
                for name, applies, why in SKIP_RULES:
                    if applies(part, example.command):
                        reason = f"rule '{name}': {why}"
                        break
                if reason:
                    break
                if part[0] not in ("limiter", "scripts/limiter"):
                    reason = "unknown"
                    break
                inputs, _ = inputs_and_outputs(limiter, part)
                for path in inputs:
                    in_repo = path != "." and glob.glob(os.path.join(scratch, path))
                    if in_repo or not skipped_before:
                        continue
                    writer = next((e for e, outs in reversed(skipped_before)
                                   if path in outs or any(p.rstrip("/") == path.rstrip("/") for p in outs)), None)
                    writer = writer or next((e for e, _ in reversed(skipped_before)
                                             if re.search(r"limiter run\b", e.command)), None)
                    if writer is not None:
                        reason = (f"rule 'input of a skipped command': reads '{path}', which "
                                  f"`{writer.command}` ({readme.at(writer.number)}) writes")
                        break
                if reason:
                    break
            if reason == "unknown":
                fail(where, f"`{example.command}`: neither limiter's nor covered by a skip rule "
                            f"(tests/cli/readme_test.py SKIP_RULES)")
                continue
            if reason:
                skipped += 1
                outputs = [o for part in segments(argv) for o in inputs_and_outputs(limiter, part)[1]]
                skipped_before.append((example, outputs))
                print(f"skipped  {where}: {example.command}\n         ({reason})")
                continue
            line = re.sub(r"^scripts/limiter(?=\s|$)", "limiter", example.command)
            rc, out, err = run(line, scratch, env, shell=True)
            ran += 1
            print(f"ran      {where}: {example.command}  (exit code {rc})")
            if rc is None:
                fail(where, f"`{example.command}` {err}")
                continue
            if rc != example.exit_code:
                fail(where, f"`{example.command}` exited with code {rc}, the README expects {example.exit_code}"
                            f" (a trailing comment '# exit code N' states another)"
                            + "".join(f"\n      {line}" for line in err.strip().splitlines()[-3:]))
            stdout, stderr = out.splitlines(), err.splitlines()
            if example.contiguous:
                check_transcript(readme, example, stdout + stderr, what)
            else:
                check_comments(readme, example, stdout, stderr, what)
    scratch_root.cleanup()
    print(f"examples: {ran} run, {skipped} skipped")


# ----------------------------------------------------------------------------- b: synopsis


def table_rows(readme, heading):
    rows, inside = [], False
    for number, text, section in readme.prose:
        if section != heading:
            if inside:
                break
            continue
        if text.startswith("|"):
            inside = True
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", text)[1:-1]]
            if cells and not re.fullmatch(r"-+", cells[0].replace(":", "")):
                rows.append((number, cells))
        elif inside and not text.strip():
            break
    return rows


OPTION = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*|-[A-Za-z])(?![\w-])")


def check_synopsis(readme, limiter):
    rows = table_rows(readme, "Subcommands")
    if not rows:
        fail(readme.name, "no table under the heading 'Subcommands'")
        return
    commands = limiter.commands()
    seen = {}
    for number, cells in rows[1:]:       # rows[0]: the header
        match = re.match(r"^`limiter ([a-z]+)(.*)`$", cells[0])
        if not match:
            fail(readme.at(number), f"first cell is not `limiter COMMAND ...`: {cells[0]}")
            continue
        command, synopsis = match.group(1), match.group(2)
        seen[command] = number
        if command not in commands:
            fail(readme.at(number), f"`limiter {command}` is not a command of `limiter --help`")
            continue
        synopsis = synopsis.split(" -- ")[0]          # `-- app args`: the application's own
        options = limiter.options(command)
        named = set()
        for found in OPTION.finditer(synopsis):
            name = found.group(1)
            if name not in options:
                fail(readme.at(number), f"the synopsis of `limiter {command}` names {name}, which "
                                        f"`limiter {command} --help` does not list")
                continue
            canonical, takes_value = options[name]
            named.add(canonical)
            after = synopsis[found.end():]
            shows_value = bool(re.match(r"^ [^-\[\]|\s]", after)) or after.startswith("=")
            if takes_value != shows_value:
                fail(readme.at(number), f"the synopsis of `limiter {command}` shows {name} "
                                        + ("without a value, but --help says it takes one" if takes_value
                                           else "with a value, but --help says it is a flag"))
        for canonical in sorted({c for c, _ in options.values()}):
            if canonical in named or canonical == "--help":
                continue
            spellings = sorted(n for n, (c, _) in options.items() if c == canonical)
            fail(readme.at(number), f"`limiter {command} --help` lists {' / '.join(spellings)}, "
                                    f"which the README's synopsis of `limiter {command}` leaves out")
    for command in commands:
        if command not in seen:
            fail(f"{readme.name} (table 'Subcommands')", f"no row for `limiter {command}`, a command of `limiter --help`")
    print(f"synopsis: {len(seen)} commands checked against their --help")



def check_links(readme, limiter):
    for where, message in doc_links.broken_links(readme.path, readme.prose, readme.at):
        fail(where, message)

# ----------------------------------------------------------------------------- c: counts

WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                      "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
NUMBER = r"(\d[\d,]*|" + "|".join(WORDS) + r")"
RECORDINGS = ["tests/data/kernels/h200_kernels_run.json", "tests/data/kernels/h100_kernels_run.json"]


def number(text):
    text = text.lower()
    return WORDS[text] if text in WORDS else int(text.replace(",", ""))


def suite_facts(limiter):
    rc, out, err = limiter("kernels", "--list")
    if rc != 0:
        fail("limiter kernels --list", f"exit code {rc}: {err.strip()}")
        return None
    rows, footer = [], None
    for line in out.splitlines()[1:]:
        match = re.match(r"^(\d+) experiments;.*\(families: (.*)\)", line)
        if match:
            footer = (int(match.group(1)), [f.strip() for f in match.group(2).split(",")])
        elif line and not line[0].isspace():
            rows.append(line.split()[:2])
    if footer is None or footer[0] != len(rows):
        fail("limiter kernels --list", f"cannot read the catalog: {len(rows)} rows, footer {footer}")
        return None
    families = footer[1]
    facts = {
        "experiments": len(rows),
        "families": len(families),
        "single-GPU": sum(1 for _, family in rows if family != "multi_gpu"),
        "multi-GPU": sum(1 for _, family in rows if family == "multi_gpu"),
        "ML patterns": sum(1 for _, family in rows if family == "ml_patterns"),
    }
    recorded = []
    for path in RECORDINGS:
        rc, out, err = limiter("report", path, "--top", "1")
        match = re.search(r"^(\d[\d,]*) launches? of (\d[\d,]*) kernels?", out, re.M)
        if rc != 0 or not match:
            fail(f"limiter report {path}", f"exit code {rc}, no 'N launches of M kernels' line: {err.strip()[:200]}")
            continue
        recorded.append(number(match.group(2)))
    facts["recording"] = recorded
    return facts


def sentences(readme, section):
    """(line number, sentence) of the prose: the whole of every section whose heading matches
    `section` (a regular expression), and elsewhere any sentence that names the kernel suite."""
    paragraphs, current = [], []
    for number, text, heading in readme.prose:
        if not text.strip() or text.startswith("#") or text.startswith("|"):
            if current:
                paragraphs.append(current)
            current = []
            if text.startswith("|"):
                paragraphs.append([(number, text, heading)])
            continue
        current.append((number, text, heading))
    if current:
        paragraphs.append(current)
    for paragraph in paragraphs:
        joined, starts = "", []
        for number, text, _ in paragraph:
            starts.append((len(joined), number))
            joined += text.strip() + " "
        in_section = bool(re.search(section, paragraph[0][2], re.I))
        begin = 0
        for end in [m.start() for m in re.finditer(r"(?<=[.;])\s+", joined)] + [len(joined)]:
            sentence = joined[begin:end].strip()
            if sentence and (in_section or re.search(r"kernel suite|the suite\b", sentence)):
                line = max(n for offset, n in starts if offset <= begin)
                yield line, sentence, in_section
            begin = end + 1


def check_counts(readme, limiter):
    facts = suite_facts(limiter)
    if facts is None:
        return
    section = r"\bkernel suite\b"
    source = "`limiter kernels --list`"
    forms = [  # (pattern, [(group, fact, what)])
        (NUMBER + r" (?:kernels|experiments) in " + NUMBER + r" families",
         [(1, "experiments", "experiments"), (2, "families", "families")]),
        (NUMBER + r" single-GPU kernels?(?: experiments)?", [(1, "single-GPU", "single-GPU kernels")]),
        (NUMBER + r" multi-GPU (?:kernels?|experiments?)", [(1, "multi-GPU", "multi-GPU experiments")]),
        (NUMBER + r" ML patterns", [(1, "ML patterns", "ML patterns (family ml_patterns)")]),
        (r"each recording holds " + NUMBER + r" kernels", [(1, "recording", "kernels in each recording")]),
    ]
    any_count = re.compile(r"\b" + NUMBER + r"(?: [\w-]+){0,2}? (?:kernels?|experiments?)\b", re.I)
    checked = 0
    for line, sentence, in_section in sentences(readme, section):
        covered = []
        for pattern, groups in forms:
            for match in re.finditer(r"\b" + pattern + r"\b", sentence, re.I):
                covered.append(match.span())
                for group, fact, what in groups:
                    stated = number(match.group(group))
                    want = facts[fact]
                    checked += 1
                    if fact == "recording":
                        if any(stated != w for w in want):
                            fail(readme.at(line), f"'{match.group(0)}', but `limiter report` of "
                                                  f"{', '.join(RECORDINGS)} counts {' and '.join(map(str, want))} kernels")
                    elif stated != want:
                        fail(readme.at(line), f"'{match.group(0)}': {source} shows {want} {what}")
        if in_section:   # results over the recordings: N/M, M = the recording's kernels
            for match in re.finditer(r"\b(\d+)/(\d+)\b", sentence):
                checked += 1
                if any(int(match.group(2)) != w for w in facts["recording"]):
                    fail(readme.at(line), f"'{match.group(0)}': the recordings ({', '.join(RECORDINGS)}) "
                                          f"hold {' and '.join(map(str, facts['recording']))} kernels")
        for match in any_count.finditer(sentence):
            if not any(start <= match.start() < end for start, end in covered):
                fail(readme.at(line), f"'{match.group(0)}': a count about the kernel suite in a form this test "
                                      f"does not check (write 'N kernels in M families', 'N single-GPU kernels', "
                                      f"'N ML patterns' or 'each recording holds N kernels', or add the form to "
                                      f"tests/cli/readme_test.py)")
    if checked == 0:
        fail(readme.name, "states no count of the kernel suite in a form this test checks, yet its counts "
                          "are tested (tests/cli/readme_tests.cmake registers the pages with a heading on the kernel suite)")
    print(f"counts: {checked} checked against {source} ({facts['experiments']} experiments, "
          f"{facts['single-GPU']} single-GPU, {facts['families']} families) and the recordings "
          f"({', '.join(map(str, facts['recording']))} kernels)")


# -----------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limiter", required=True, help="the built limiter executable")
    parser.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--readme", help="default: REPO/README.md")
    parser.add_argument("checks", nargs="*", help="examples, synopsis, links, counts (default: all four)")
    args = parser.parse_args()
    args.checks = args.checks or ["examples", "synopsis", "links", "counts"]
    for check in args.checks:
        if check not in ("examples", "synopsis", "links", "counts"):
            parser.error(f"unknown check '{check}' (examples, synopsis, links or counts)")
    repo = os.path.realpath(args.repo)
    readme = Readme(args.readme or os.path.join(repo, "README.md"))
    limiter = Limiter(args.limiter, repo)
    if not os.access(limiter.binary, os.X_OK):
        print(f"FAIL: {limiter.binary} is not an executable (build the target limiter)")
        return 1
    for check in args.checks:
        {"examples": check_examples, "synopsis": check_synopsis, "links": check_links,
         "counts": check_counts}[check](readme, limiter)
    if FAILURES:
        print(f"\nFAIL: {len(FAILURES)} disagreement(s) between {readme.name} and the built limiter:")
        for failure in FAILURES:
            print(f"  {failure}")
        return 1
    print(f"OK: {readme.name} agrees with {limiter.binary} ({', '.join(args.checks)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
