"""Common subexpressions and loop-invariant values of one generated function.

While a function is generated, each pure call (a content function, a
builtin without randomness) is written as the name of a slot (`_m12`), and
each place where values may be made unknown again (the top of the function,
the top of a loop's body) as a marker statement (`_r7`).  `Memo.finish`
decides what each slot becomes, and `lower.Placed` puts that on the syntax
tree before the function is compiled (never on its text):

- a slot read twice in the same loop iteration, or that does not depend on
  the loop it sits in (hoisted: computed once for the whole function, not
  once per element) is *kept*: every read becomes
  `(_m12 if _m12 is not _U else (_m12 := value))`, and its marker
  `_m12 = _U`.  A kept value is still computed lazily, where it was first
  needed, so a value never needed is never computed, and a fault happens
  exactly where and when it did: only repeated work goes;
- the exception is a hoisted value that cannot fail (total.harmless) in a
  function that writes nothing: it is computed at its marker (`_m12 =
  value`), and each read is the plain local;
- any other slot is its value, written where it was read.

Slot and marker names come from the game's one counter (PyGen.ids), so the
memos of the ops of one block never share a name.  Text analysis here reads
only names: generated text holds no string literal (PyGen.lit), so a word of
it is always an identifier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: an identifier of generated text (exact: it has no string literals)
_NAME = re.compile(r"\b[A-Za-z_]\w*")
SLOT = re.compile(r"_m\d+")


def names_in(text: str) -> set:
    """The identifiers of a piece of generated text."""
    return set(_NAME.findall(text))


@dataclass
class Slot:
    """One reusable value: its text, the loop region it belongs to, how often
    it is read, whether it is read in a region inside its own (hoisted), and
    whether it can fail (a test, asked only if it matters)."""
    name: str
    text: str
    region: int
    uses: int = 0
    hoisted: bool = False
    harmless: object = None


@dataclass
class Value:
    """What `lower.Placed` writes at each read of slot `name`: its value,
    kept in the local or not."""
    name: str
    text: str
    kept: bool


def _number(name):
    """`_m12` -> 12: slots in the order they were made."""
    return int(name[2:])


class Memo:
    """The slots and markers of one generated function (or of one op of a
    block); see the module docstring."""

    def __init__(self, pygen, env_reads=False, known=None, pure=False):
        self.pygen = pygen         # its counter names slots and markers; `placed` takes what they become
        self.on = True
        self.env_reads = env_reads  # the frame's locals are read once, at the top (menus, ops)
        self.pure = pure            # nothing is written while it runs (a function, a menu)
        self.eager = dict(known or {})  # text -> local, computed at the top (see `first`)
        self.known = set(self.eager)    # those already computed before this function part
        self.count = max((int(v[2:]) for v in self.eager.values()), default=-1)
        self.loops = []            # (region, loop local) of the loops being written
        self.regions = 0
        self.slots = {}            # text -> Slot
        self.by_name = {}          # slot name -> the same Slot
        self.opaque = set()        # regions of comprehensions: nothing in them is kept
        self.markers = {}          # marker name -> its region

    def reset(self, region=0) -> str:
        """A marker statement: where the kept values of `region` are made
        unknown (the top of the function, or of a loop's body)."""
        name = f"_r{next(self.pygen.ids)}"
        self.markers[name] = region
        return name

    def enter(self, local, opaque=False):
        self.regions += 1
        self.loops.append((self.regions, local))
        if opaque:
            self.opaque.add(self.regions)
        return self.regions

    def leave(self):
        self.loops.pop()

    def first(self, text):
        """A local holding `text`, computed once at the top of the function
        (or of the op, in a block).

        Only for values that cannot fail, cost little, and stay the same
        while the function or op runs: which modifiers are in force, each
        counter's list, and (in a menu, or an op, which writes none of them
        before reading) the frame's own locals, which the compiler's scoping
        guarantees are bound.  Computing them before they are needed is then
        exact, and a read in a loop costs one name.  `known` entries were
        computed by an earlier op of the same straight run (see blocks.py)."""
        name = self.eager.get(text)
        if name is None:
            self.count += 1
            name = self.eager[text] = f"_k{self.count}"
        return name

    def use(self, text, harmless=None):
        """The text to write for the pure value `text`: a slot's name."""
        bare = text
        while bare.startswith("(") and bare.endswith(")") and SLOT.fullmatch(bare[1:-1]):
            bare = bare[1:-1]
        if SLOT.fullmatch(bare):
            return bare                 # the same value as a kept one (an inlined body)
        slot = self.slots.get(text)
        if slot is None:
            names = names_in(text)
            region = 0
            for r, local in self.loops:
                if local in names:
                    region = r
            for inner in filter(SLOT.fullmatch, names):     # it depends on what its parts depend on
                region = max(region, self.by_name[inner].region)
            if region in self.opaque:
                return text             # it changes with each element of a comprehension
            slot = self.slots[text] = Slot(f"_m{next(self.pygen.ids)}", text, region, harmless=harmless)
            self.by_name[slot.name] = slot
        slot.uses += 1
        if harmless is None:
            slot.harmless = None
        inner = self.loops[-1][0] if self.loops else 0
        slot.hoisted = slot.hoisted or slot.region != inner
        return slot.name

    def finish(self) -> None:
        """Decide what each slot and marker becomes, for `lower.Placed`."""
        kept = {s.name for s in self.slots.values() if s.uses >= 2 or s.hoisted}
        # computed before the loop it is hoisted from: it cannot fail, and
        # nothing is written while the function runs, so only the time moves
        early = {name for name in kept if self.pure and self.by_name[name].hoisted
                 and self.by_name[name].harmless and self.by_name[name].harmless()}
        placed = self.pygen.placed
        for slot in self.slots.values():
            if slot.name not in early:
                placed[slot.name] = Value(slot.name, slot.text, slot.name in kept)
        for marker, region in self.markers.items():
            lines = []
            if region == 0:         # in the order made: a later one may read an earlier
                lines += [f"{name} = {text}" for text, name in self.eager.items() if text not in self.known]
            names = [n for n in sorted(kept, key=_number) if self.by_name[n].region == region]
            lazy = [n for n in names if n not in early]
            if lazy:
                lines.append(f"{' = '.join(lazy)} = _U")
            # in the order made: a value is made after the values it reads
            lines += [f"{n} = {self.by_name[n].text}" for n in names if n in early]
            placed[marker] = lines
