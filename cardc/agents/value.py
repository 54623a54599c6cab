"""A position's value fitted from simulated games, for search without `eval`.

`eval` (game.yaml) tells mcts what a good position is; a designer who has
not written one, or wants a second opinion, can fit one instead:
`cardc fit-value GAME` plays games, records every seat's features at each
turn's end and who won, and fits how much each feature is worth
(`cardc/sim/fit_value.py`).  The features are what the content already
declares, read the same way for any game:

- `counter:NAME`, each player counter that holds a number or a yes/no;
- `zone:NAME`, how many cards a player holds in each per-player zone;
- `fn:NAME`, each content function of one player that gives a number or a
  yes/no and draws no dice (`net_worth(p)`);
- `score`, the game's score, if it has one.

A seat's value is the weighted sum of its features (`FittedValue`): a
logistic model's log-odds of winning, up to a constant, so mcts compares
seats by it exactly as it compares their `eval`s.  The weights live in
game.yaml's `agents: value:` block and travel in the bundle; features a
game no longer declares are refused at build time.
"""
from __future__ import annotations

from collections.abc import Mapping

from cardc.engine.errors import EngineFault


def feature_names(game) -> list[str]:
    """The features the content declares (see the module docstring), in a
    fixed order."""
    names = [f"counter:{k}" for k, spec in sorted(game.counters["player"].items())
             if spec.get("type", "int") in ("int", "bool")]
    names += [f"zone:{z['id']}" for z in game.per_player]
    names += [f"fn:{name}" for name in sorted(player_functions(game))]
    if game.score is not None:
        names.append("score")
    return names


def player_functions(game) -> list[str]:
    """The content functions of one player that give a number or yes/no and
    draw no dice (their signatures travel in the bundle)."""
    signatures = (game.bundle.get("signatures") or {}).get("functions") or {}
    return [name for name, sig in signatures.items()
            if isinstance(sig, dict) and sig.get("returns") in ("int", "bool")
            and [p[1] for p in sig.get("params") or () if isinstance(p, list) and len(p) == 2] == ["player"]
            and len(sig.get("params") or ()) == 1 and name not in game.fn_impure and name in game.fn_bodies]


class Features:
    """Reads named features of every seat from a state (`read`)."""

    def __init__(self, game, names: list[str]):
        self.game, self.names = game, list(names)
        known = set(feature_names(game))
        unknown = [n for n in self.names if n not in known]
        if unknown:
            raise ValueError(f"{game.name} declares no feature {', '.join(unknown)} "
                             f"(its features: {', '.join(sorted(known))})")
        self._slots: dict[int, list] = {}          # players -> per feature: what to read

    def _plan(self, n: int) -> list:
        plan = self._slots.get(n)
        if plan is None:
            plan = []
            for name in self.names:
                kind, _, what = name.partition(":")
                if kind == "counter":
                    plan.append(("counter", what))
                elif kind == "zone":
                    base, index = self.game.player_zone_base(what)
                    plan.append(("zone", [base + index * n + p for p in range(n)]))
                elif kind == "fn":
                    plan.append(("fn", self.game.cached_function(what)))
                else:
                    plan.append(("score", None))
            self._slots[n] = plan
        return plan

    def read(self, st) -> list[list[float]]:
        """[seat][feature] of `st`: a counter that is none reads 0."""
        n = st.n
        out: list[list[float]] = [[] for _ in range(n)]
        scores = None
        for kind, what in self._plan(n):
            if kind == "counter":
                values = st.player_counters[what]
                for p in range(n):
                    v = values[p]
                    out[p].append(float(v) if isinstance(v, (int, float)) else 0.0)
            elif kind == "zone":
                zones = st.zones
                for p in range(n):
                    out[p].append(float(len(zones[what[p]])))
            elif kind == "fn":
                for p in range(n):
                    try:
                        v = what(st, p)
                    except EngineFault:         # a function that fails here says nothing
                        v = 0
                    out[p].append(float(v) if isinstance(v, (int, float)) else 0.0)
            else:
                if scores is None:
                    scores = st.scores()
                for p in range(n):
                    out[p].append(float(scores[p]))
        return out


class FittedValue:
    """A seat's fitted value: `weights` (feature name -> weight) summed over
    the seat's features, read from a state."""

    def __init__(self, game, weights: Mapping[str, float]):
        self.weights = dict(weights)
        self.features = Features(game, list(self.weights))
        self._w = [float(self.weights[n]) for n in self.features.names]

    def all(self, st) -> list[float]:
        """Every seat's value of `st`."""
        w = self._w
        return [sum(a * b for a, b in zip(w, row, strict=True)) for row in self.features.read(st)]

    def __call__(self, st, p: int) -> float:
        return self.all(st)[p]


def fitted_value(game) -> FittedValue | None:
    """The game's fitted value (its bundle's `agents: value:`), made once; None if it has none."""
    hit = game.__dict__.get("_fitted_value", False)
    if hit is False:
        weights = (game.bundle.get("agents") or {}).get("value")
        hit = FittedValue(game, weights) if weights else None
        game.__dict__["_fitted_value"] = hit
    return hit
