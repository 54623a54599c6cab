"""The few plain sentences a sweep or comparison report opens with.

A designer who changed one number asks: what changed, by how much, how
sure, what did not change, and could this many games have seen a change at
all?  The tables below the answer hold every number; these sentences say
the same in words, with one set of units shared by every command (`value`,
`difference`): win rates and other 0/1 metrics in percent and their
differences in percentage points, other metrics as numbers with their
change in percent of the baseline.

The power analysis is the usual normal approximation for a paired test:
to detect a true difference `delta` with probability `POWER` at a
two-sided level `a`, a test needs n = ((z(1-a/2) + z(POWER)) * sd / delta)^2
pairs, sd the standard deviation of the paired differences measured in this
run.  The level is the one the report's marks use: Holm's first step
(alpha over the number of tests), so the number is never optimistic.
"""
from __future__ import annotations

import math
from statistics import NormalDist

from cardc.sim.quality import QUALITY
from cardc.sim.quality import unit as quality_unit
from cardc.sim.sequential import DETECT_POINTS, DETECT_SHARE
from cardc.sim.stats import ALPHA, is_rate

#: the chance of detecting a difference that the power analysis plans for
POWER = 0.8


# ---------------------------------------------------------------- units

def rate_metric(name: str) -> bool:
    """A metric measured in percent (its differences in points): a 0/1
    metric (`win.seat1`, `capped`), a win-rate row of `compare` (`win 4p
    seat 1`) or a quality measure that is a share or a difference of shares
    (`quality 4p decisiveness`, `quality 4p skill gap: ...`)."""
    return is_rate(name) or name.startswith("win ") or quality_unit(name) in ("percent", "points")


def value(name: str, x) -> str:
    """A metric's value in the report's units (a quality measure that is
    itself a difference, such as the first-player advantage, in points)."""
    if x is None:
        return "–"
    if quality_unit(name) == "points":
        return points(x)
    return f"{100 * x:.1f}%" if rate_metric(name) else f"{x:,.3g}" if abs(x) < 100 else f"{x:,.1f}"


def points(x: float) -> str:
    """A difference of two rates: +1.2 pts."""
    return f"{100 * x:+.1f} pts"


def points_interval(lo: float, hi: float) -> str:
    """The interval of a difference of rates: [-1.0, +3.4] pts."""
    return f"[{100 * lo:+.1f}, {100 * hi:+.1f}] pts"


def difference(name: str, x) -> str:
    """A difference in the report's units: points for rates."""
    if rate_metric(name):
        return points(x)
    return f"{x:+,.3g}" if abs(x) < 100 else f"{x:+,.1f}"


def interval(name: str, lo, hi) -> str:
    if rate_metric(name):
        return points_interval(lo, hi)
    return f"[{lo:+,.3g}, {hi:+,.3g}]"


def change(d: dict, name: str = "") -> str:
    """The difference as a share of the baseline ("new" from nothing; "–"
    for a baseline that is itself a difference, which may be near 0)."""
    if quality_unit(name) == "points":
        return "–"
    if not d.get("base"):
        return "new" if d.get("diff") else "0%"
    share = 100 * d["diff"] / abs(d["base"])
    return f"{share:+.1f}%" if abs(share) < 10 else f"{share:+.0f}%"


def label(name: str) -> str:
    """A metric's name in words: win.seat1 -> "seat 1's win rate"."""
    if name.startswith(QUALITY):        # quality 4p decisiveness -> decisiveness (4 players)
        count, _, measure = name[len(QUALITY):].partition("p ")
        return f"{measure} ({count} players)"
    if name.startswith("win.seat"):
        return f"seat {name[8:]}'s win rate"
    if name.startswith("win."):
        return f"{name[4:]}'s win rate"
    return {"turns": "game length in turns", "minutes": "game length in minutes",
            "decisions": "decisions per game", "lead_changes": "lead changes per game",
            "score.winner": "the winner's score", "no_winner": "games without a winner",
            "capped": "games stopped at the turn cap", "shared_win": "shared wins",
            "fault": "faulted games"}.get(name, name)


def smallest(name: str, d: dict, points: float = DETECT_POINTS, share: float = DETECT_SHARE) -> float:
    """The smallest difference that matters (the same rule as the
    sequential test's, `sequential.Design.smallest`)."""
    if rate_metric(name):
        return points
    return share * abs(d.get("base") or d.get("a") or 0) or share


# ---------------------------------------------------------------- power

def games_needed(sd: float, delta: float, level: float, power: float = POWER) -> int:
    """Pairs a paired test at two-sided `level` needs to detect `delta`."""
    if sd <= 0 or delta <= 0:
        return 2
    z = NormalDist().inv_cdf
    return max(2, math.ceil(((z(1 - level / 2) + z(power)) * sd / delta) ** 2))


def detectable(sd: float, n: int, level: float, power: float = POWER) -> float:
    """The smallest true difference `n` pairs detect with `power`."""
    if n < 2:
        return math.inf
    z = NormalDist().inv_cdf
    return (z(1 - level / 2) + z(power)) * sd / math.sqrt(n)


def _pair_sd(d: dict) -> float:
    """The sd of the paired differences; where every pair was equal (the
    variant changed nothing yet), the sd two independent games would have,
    so the plan does not promise detection from zero noise."""
    return d.get("sd") or math.hypot(d.get("base_sd", 0.0), d.get("variant_sd", 0.0))


# ---------------------------------------------------------------- sweep

def sweep_answer(sweep: dict, baseline_values: dict) -> list[str]:
    """The opening sentences of a sweep report, one list for all variants."""
    out = []
    tests = max(1, sweep["families"]["outcome"]["tests"])
    level = sweep.get("level") or ALPHA
    for v in sweep["variants"]:
        out.append(_variant_sentence(v, baseline_values, sweep))
        # win rates first: who wins is what a sweep is run for
        changed = sorted((d for d in v["diffs"].items() if d[1]["significant"]),
                         key=lambda item: (not item[0].startswith("win."), item[1]["p_adjusted"]))
        if changed:
            out.append("  Changed (sure at 5% after Holm's correction): " + "; ".join(
                f"{label(n)} {difference(n, d['diff'])} ({value(n, d['base'])} → "
                f"{value(n, d['variant'])}, {change(d)}; 95% {interval(n, d['lo'], d['hi'])})"
                for n, d in changed[:4]) + (f"; and {len(changed) - 4} more" if len(changed) > 4 else "")
                + ".")
        else:
            out.append("  Nothing changed detectably (no difference passes Holm's correction at 5%).")
        verdicts = v.get("verdicts") or {}
        unchanged = [n for n, x in verdicts.items() if x == "unchanged"]
        if unchanged:
            seq = sweep["sequential"]
            out.append(f"  Decided unchanged (each moves by less than {100 * seq['detect_points']:g} pts "
                       f"or {100 * seq['detect_share']:g}%): " + ", ".join(label(n) for n in unchanged)
                       + ".")
        same = [(n, d) for n, d in v["diffs"].items() if not d["significant"] and d["n"] > 1]
        rates = [(n, d) for n, d in same if n.startswith("win.")]
        if rates:
            widest = max(max(abs(d["lo"]), abs(d["hi"])) for _, d in rates)
            out.append(f"  Not changed: {len(rates)} win rates (by seat and agent), each within "
                       f"±{100 * widest:.1f} pts (95%).")
        win = [(n, d) for n, d in v["diffs"].items() if n.startswith("win.") and d["n"] > 1]
        if win:
            sd = max(_pair_sd(d) for _, d in win)
            n_games = sweep["games"]
            can = detectable(sd, min(d["n"] for _, d in win), level / tests)
            need = games_needed(sd, DETECT_POINTS, level / tests)
            out.append(f"  Power: {n_games:,} games detect a win-rate change of {100 * can:.1f} pts "
                       f"({100 * POWER:.0f}% power); a {100 * DETECT_POINTS:.0f}-pt change needs about "
                       f"{need:,} games.")
    stop = sweep.get("stopped")
    if stop:
        out.append(stop)
    return out


def _variant_sentence(v: dict, baseline_values: dict, sweep: dict) -> str:
    parts = []
    for path, new in v["set"].items():
        old = baseline_values.get(path)
        parts.append(f"{path} from {_plain(old) if old is not None else 'its value'} (baseline) to {new}")
    return (f"Setting {', '.join(parts)}, over {sweep['games']:,} paired games "
            f"({', '.join(sweep['agents'])}; players {','.join(map(str, sweep['players']))}):")


def _plain(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def baseline_values(bundle: dict, paths) -> dict:
    """The baseline's value of each `--set` path, read from its bundle
    (params, a card's count or field, or any number by key), None where the
    bundle does not hold it as written."""
    out = {}
    for path in paths:
        parts = path.split(".")
        node = None
        if parts[0] == "params" and len(parts) == 2:
            node = (bundle.get("params") or {}).get(parts[1])
        elif parts[0] == "cards" and len(parts) == 3:
            card = next((c for c in bundle["cards"] if c["id"] == parts[1]), None)
            if card is not None:
                node = card.get(parts[2], (card.get("fields") or {}).get(parts[2]))
        else:
            node = bundle
            for part in parts:
                if isinstance(node, dict):
                    node = node.get(part)
                elif isinstance(node, list):
                    node = next((x for x in node if isinstance(x, dict) and str(x.get("id")) == part), None)
                else:
                    node = None
        out[path] = node if isinstance(node, (int, float)) and not isinstance(node, bool) else None
    return out


# ---------------------------------------------------------------- compare

def compare_answer(a: dict, b: dict, rows: list) -> list[str]:
    """The opening sentences of `cardc compare` (two independent runs)."""
    paths = [k for k in {**a.get("overrides", {}), **b.get("overrides", {})}
             if _played(a, k) != _played(b, k)]
    what = ", ".join(f"{k} from {_played(a, k)} (A) to {_played(b, k)}" for k in paths)
    out = [f"B against A ({a['plan']['games']:,} and {b['plan']['games']:,} independent games"
           + (f"; B sets {what}" if what else "") + "):"]
    outcome = [r for r in rows if not r["what"].startswith(QUALITY)]
    changed = sorted((r for r in outcome if r["significant"]), key=lambda r: r["p_adjusted"])
    if changed:
        out.append("  Changed (sure at 5% after Holm's correction): " + _listed(changed) + ".")
    else:
        out.append("  Nothing changed detectably (no difference passes Holm's correction at 5%).")
    rates = [r for r in outcome if r["what"].startswith("win") and not r["significant"]
             and math.isfinite(r["lo"]) and math.isfinite(r["hi"])]
    if rates:
        widest = max(max(abs(r["lo"]), abs(r["hi"])) for r in rates)
        out.append(f"  Not changed: {len(rates)} win rates, each within ±{100 * widest:.1f} pts (95%).")
    # a row that repeats another's test (drama, first-player advantage) is not named twice
    quality = [r for r in rows if r["what"].startswith(QUALITY) and "same_as" not in r]
    moved = sorted((r for r in quality if r["significant"]), key=lambda r: r["p_adjusted"])
    if moved:
        out.append(f"  Quality measures changed (Holm's correction over these {len(quality)} and "
                   "the rows above together): " + _listed(moved) + ".")
    elif quality:
        out.append(f"  Quality measures: none of {len(quality)} changed detectably (Holm's "
                   "correction over them and the rows above together).")
    level = ALPHA / max(1, sum("same_as" not in r for r in rows))
    # two independent runs: each needs twice the pairs of a paired test of
    # the same spread; a win rate near 1/2 has the largest spread, 0.5
    need = 2 * games_needed(0.5, DETECT_POINTS, level)
    out.append(f"  Power: detecting a {100 * DETECT_POINTS:.0f}-pt change in a win rate needs about "
               f"{need:,} games in each report ({100 * POWER:.0f}% power); a paired `cardc sweep` "
               "needs fewer.")
    return out


def _played(report: dict, path: str) -> str:
    """The value a report's games were played with at `path`: its `--set`,
    else the content's (from the report's params; "as written" for a path
    outside them or a report saved before params were kept)."""
    if path in report.get("overrides", {}):
        return str(report["overrides"][path])
    known = baseline_values({"params": report.get("params") or {}}, [path])[path]
    return "as written" if known is None else _plain(known)


def _listed(rows: list, most: int = 4) -> str:
    """The first `most` changed rows of `cardc compare` in words."""
    return "; ".join(
        f"{label(r['what'])} {difference(r['what'], r['diff'])} ({value(r['what'], r['a'])} → "
        f"{value(r['what'], r['b'])}; 95% {interval(r['what'], r['lo'], r['hi'])})"
        for r in rows[:most]) + (f"; and {len(rows) - most} more" if len(rows) > most else "")
