"""Write, for every game the project and its tests hold, what the engine
makes of its bundle: the generated source (`cardc build --explain`), what
each function reads (`Game.fn_deps`, `mod_deps`), and the modifiers'
specialisations, one file per game under OUT.

A refactoring of the engine that must not change what it generates is
checked by running this before and after and comparing the folders:

    python tools/explain_all.py /tmp/before
    … change …
    python tools/explain_all.py /tmp/after && diff -r /tmp/before /tmp/after
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from cardc.engine.explain import explain
from cardc.engine.game import Game
from cardc.project.build import build_folder

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted([*ROOT.glob("content/*/game.yaml"), *ROOT.glob("tests/fixtures/games/*/game.yaml")])


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    for path in GAMES:
        built = build_folder(path.parent)
        if built.bundle is None:
            print(f"{path.parent}: does not build", file=sys.stderr)
            return 1
        game = Game(built.bundle)
        name = path.parent.name
        (out / f"{name}.py").write_text(explain(game, ROOT))
        facts = {"fn_deps": game.fn_deps, "mod_deps": game.mod_deps,
                 "covered": sorted(game.covered_counters), "fn_simple": game.fn_simple,
                 "modifier_keys": game.modifier_keys}
        (out / f"{name}.json").write_text(json.dumps(facts, indent=1, sort_keys=True, default=sorted))
        print(name, "ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
