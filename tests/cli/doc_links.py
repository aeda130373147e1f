"""The links of a Markdown page: each relative link must lead to a file or folder that exists, and
its anchor to a heading of the Markdown file it names, as GitHub derives anchors from headings.
Used by readme_test.py (its check `links`)."""

import os
import re


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def github_anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors_of(path):
    anchors, seen, fence = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
                continue
            match = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if match:
                anchor = github_anchor(match.group(1))
                count = seen.get(anchor, 0)
                seen[anchor] = count + 1
                anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return anchors


def broken_links(page, prose, at):
    """(where, message) for each broken link of `prose`, the page's (line number, text, heading)
    outside code blocks; code spans are not links. Prints how many links were checked."""
    broken, checked = [], 0
    page_dir = os.path.dirname(os.path.abspath(page))
    for number, text, _ in prose:
        for match in LINK.finditer(re.sub(r"`[^`]*`", "", text)):
            target = match.group(1)
            if re.match(r"^[a-z]+:", target):
                continue                      # http(s), mailto: not fetched
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(page_dir, path)) if path else os.path.abspath(page)
            checked += 1
            if not os.path.exists(resolved):
                broken.append((at(number), f"link '{target}': {os.path.relpath(resolved)} does not exist"))
            elif anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
                broken.append((at(number), f"link '{target}': {os.path.relpath(resolved)} has no heading "
                                           f"whose anchor is '#{anchor}'"))
    print(f"links: {checked} checked")
    return broken
