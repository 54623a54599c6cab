"""`cardc guide [TOPIC]`: the designer's guide from an installed cardc.

The guide is grammar/README.md, installed with the wheel as package data
(cardc.grammar), so a designer who got cardc from `pip install` can read it
without the repository: `cardc guide` lists its sections, `cardc guide
zones` prints the section on zones (with its subsections).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cardc.load.paths import GRAMMAR

_HEADING = re.compile(r"^(#{1,4}) +(.+?) *$")
_NUMBER = re.compile(r"^\d+\. +")


class GuideError(ValueError):
    """A topic that names no section: the message lists what is close."""


@dataclass
class Section:
    level: int          # 1 for `#`, 2 for `##`, …
    title: str          # as written, `3. game.yaml`
    start: int          # index of its heading line
    end: int            # index after its last line (the next heading of its level or above)

    @property
    def name(self) -> str:
        """The title without its number, lowercase: what a topic is matched with."""
        return _NUMBER.sub("", self.title).strip("`").lower()


def guide_text() -> str:
    return (GRAMMAR / "README.md").read_text(encoding="utf-8")


def sections(text: str) -> list[Section]:
    """Every heading of the guide, outside code blocks (where `#` starts a
    YAML comment), with the lines it covers."""
    lines = text.splitlines()
    found, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append(Section(len(match.group(1)), match.group(2), i, len(lines)))
    for k, s in enumerate(found):
        s.end = next((t.start for t in found[k + 1:] if t.level <= s.level), len(lines))
    return found


def find(topic: str, text: str) -> tuple[Section, list[Section]]:
    """The section a topic names, and the others it also names: a title equal
    to the topic first, then one that starts with it, then one that holds
    it as a word."""
    want = " ".join(topic.lower().split())
    every = [s for s in sections(text) if s.level > 1]
    for test in (lambda n: n == want, lambda n: n.startswith(want),
                 lambda n: re.search(rf"(^|\W){re.escape(want)}($|\W)", n)):
        hits = [s for s in every if test(s.name)]
        if hits:
            return hits[0], hits[1:]
    from cardc.load.diagnostics import did_you_mean
    hint = did_you_mean(want, [s.name for s in every])
    raise GuideError(f"the guide has no section on `{topic}`" + (f" ({hint})" if hint else "")
                     + "; `cardc guide` lists them")


def contents(text: str) -> str:
    """The guide's sections, indented by level, for `cardc guide` alone."""
    out = ["The cardc designer's guide. `cardc guide TOPIC` prints one section, "
           "e.g. `cardc guide zones`:", ""]
    for s in sections(text):
        if s.level > 1:
            out.append("  " * (s.level - 2) + _NUMBER.sub("", s.title))
    return "\n".join(out)


def section_text(section: Section, text: str) -> str:
    return "\n".join(text.splitlines()[section.start:section.end]).rstrip()


def add_command(sub) -> None:
    s = sub.add_parser("guide", help="the designer's guide: its sections, or the one on TOPIC")
    s.add_argument("topic", nargs="*", help="a section's title or a word of it: zones, menus, "
                   "\"zone families\" (default: list the sections)")
    s.set_defaults(func=run)


def run(args) -> int:
    from cardc.project import UsageError
    text = guide_text()
    if not args.topic:
        print(contents(text))
        return 0
    try:
        section, others = find(" ".join(args.topic), text)
    except GuideError as exc:
        raise UsageError(str(exc)) from None
    print(section_text(section, text))
    if others:
        print("\nalso on this: " + ", ".join(f"`{_NUMBER.sub('', s.title)}`" for s in others[:6]))
    return 0
