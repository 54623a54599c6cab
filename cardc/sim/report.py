"""Simulation reports: one plain summary, shown three ways.

`summarize` turns a run's Aggregate into a JSON-able dict (the `--json`
file).  The terminal tables (`print_report`), the HTML page (`write_html`,
charts drawn as inline SVG, no scripts, no network) and `cardc compare` read
that dict only, so a saved report can be shown or compared later exactly as
it was printed.  Everything in it is fixed by the seed except `run` (speed
and memory of this particular run).
"""
from __future__ import annotations

import html
import math
from collections import defaultdict

from rich.text import Text

from cardc.sim import answer as units
from cardc.sim.intervals import Tally, newcombe, welch, wilson
from cardc.sim.quality import QUALITY
from cardc.sim.quality import compare_rows as quality_compare
from cardc.sim.quality import rows as quality_rows
from cardc.sim.run import DEFAULT_SECONDS_PER_ACTION
from cardc.sim.stats import ENDINGS, is_rate, mark_significant

REPORT_FORMAT = 1


# ---------------------------------------------------------------- summary

def timing_of(bundle: dict, target_minutes=None) -> dict:
    """The game's timing hints, saying when the default was assumed."""
    t = bundle.get("timing") or {}
    return {"seconds_per_action": t.get("seconds_per_action", DEFAULT_SECONDS_PER_ACTION),
            "seconds_per_turn": t.get("seconds_per_turn", 0),
            "target_minutes": target_minutes or t.get("target_minutes"),
            "assumed": "seconds_per_action" not in t}


def use_zones_of(bundle: dict, zones=None) -> list[str]:
    """Zones where a card entering counts as "used": by default every public
    per-player zone (a bank, a tableau, a chosen startup)."""
    if zones:
        return list(zones)
    return [z["id"] for z in bundle["zones"] if z["owner"] == "player" and z["visibility"] == "public"]


def summarize(agg, bundle: dict, plan, *, overrides=None, holes=(), holes_skipped=0,
              target_minutes=None, use_zones=None, run=None) -> dict:
    timing = timing_of(bundle, target_minutes)
    counts = {n: agg.counts[n] for n in sorted(agg.counts)}
    report = {
        "format": REPORT_FORMAT, "game": bundle["game"], "name": bundle["name"],
        "bundle": bundle["source_hash"], "overrides": dict(overrides or {}),
        "params": dict(bundle.get("params") or {}),      # as played: compare names A's value
        "plan": {"games": agg.games, "players": list(plan.players), "agents": list(plan.agents),
                 "seed": plan.seed, "start_zone": plan.start_zone},
        "timing": timing,
        "endings": {e: {"games": agg.endings.get(e, 0),
                        **_share(agg.endings.get(e, 0), agg.games)} for e in ENDINGS},
        "length": {str(n): _length(cs, timing) for n, cs in counts.items()},
        "seats": {str(n): _seats(n, cs) for n, cs in counts.items()},
        "agents": _by_key(counts, "agents"),
        "starts": _by_key(counts, "starts") if plan.start_zone else {},
        "scores": {str(n): {"final": cs.final_scores.summary(), "winning": cs.winning_scores.summary(),
                            "lead_changes": cs.lead_changes.summary(),
                            "by_turn": [[t, row[0], row[1] / row[0], row[2] / row[3]]
                                        for t, row in sorted(cs.by_turn.items())]}
                   for n, cs in counts.items()},
        "quality": {str(n): cs.quality.summary(n, cs.seats, cs.agents) for n, cs in counts.items()},
        "cards": _cards(agg, bundle),
        "decisions": _decisions(counts.values()),
        "holes": list(holes), "holes_not_saved": holes_skipped,
        "metrics": {name: agg.metrics[name].summary() for name in sorted(agg.metrics)},
        "run": run or {},
    }
    report["use_zones"] = use_zones_of(bundle, use_zones)
    report["unused"] = _unused(report["cards"], bundle, report["use_zones"])
    return report


def _share(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"share": k / n if n else 0.0, "lo": lo, "hi": hi}


def _length(cs, timing) -> dict:
    out = {"games": cs.games, "turns": cs.turns.summary(), "minutes": cs.minutes.summary(),
           "decisions": cs.decisions, "forced": cs.decisions - cs.choices,
           "forced_share": (cs.decisions - cs.choices) / cs.decisions if cs.decisions else 0.0}
    target = timing.get("target_minutes")
    if target and cs.games:
        mean = out["minutes"]["mean"]
        near = sum(c for v, c in cs.minutes.counts.items() if abs(v - target) <= 0.2 * target)
        out["target"] = {"minutes": target, "diff": mean - target, "ratio": mean / target - 1,
                         "within_20pc": near / cs.games}
    return out


def _seats(n: int, cs) -> dict:
    places = []
    for seat in range(n):
        row = cs.places.get(seat, {})
        total = sum(row.values())
        places.append([{"games": row.get(p, 0), "share": row.get(p, 0) / total if total else 0.0}
                       for p in range(1, n + 1)])
    return {"win": [{"seat": s + 1, **cs.seats.get(s, Tally()).summary()} for s in range(n)],
            "places": places}


def _by_key(counts: dict, attr: str) -> dict:
    """Win rates by agent (or starting choice), per player count and pooled."""
    out, pooled = {}, defaultdict(Tally)
    for n, cs in counts.items():
        table = getattr(cs, attr)
        out[str(n)] = {k: table[k].summary() for k in sorted(table)}
        for k, t in table.items():
            pooled[k].merge(t)
    out["all"] = {k: pooled[k].summary() for k in sorted(pooled)}
    return out


def _cards(agg, bundle) -> list[dict]:
    entered = defaultdict(dict)
    for key, use in agg.entered.items():
        card, zone = key.split(">", 1)
        entered[card][zone] = use
    out = []
    for card in bundle["cards"]:
        cid = card["id"]
        r = agg.resolved.get(cid)
        row = {"id": cid, "name": card["name"], "kind": card["kind"],
               "has_effect": bool(card.get("effect")),
               "resolved": _use(r, agg.games),
               "entered": {z: _use(u, agg.games) for z, u in sorted(entered[cid].items())}}
        if card.get("reaction"):        # a defence: how often it answered a window
            row["answered"] = _use(agg.answered.get(cid), agg.games)
        out.append(row)
    return out


def _use(use, games) -> dict:
    if use is None:
        return {"times": 0, "games": 0, "per_game": 0.0, "game_share": 0.0, "win": Tally().summary()}
    return {"times": use.times, "games": use.games, "per_game": use.times / games if games else 0.0,
            "game_share": use.games / games if games else 0.0, "win": use.seats.summary()}


def _unused(cards: list, bundle, use_zones) -> dict:
    """Cards no agent used.  A card is used when it is resolved or enters a
    use zone; a kind none of whose cards is ever used that way (ipo's tiles
    go to a shared board) is structural, not a sign of a dead card, so its
    cards are not listed: the kind is named instead."""
    def used(c):
        return (c["resolved"]["times"] or c.get("answered", {}).get("times")
                or any(c["entered"].get(z, {}).get("times") for z in use_zones))
    live_kinds = {c["kind"] for c in cards if used(c)}
    return {"never_resolved": [c["id"] for c in cards if c["has_effect"] and not c["resolved"]["times"]],
            "never_used": [c["id"] for c in cards if not used(c) and c["kind"] in live_kinds],
            "kinds_never_used": sorted({c["kind"] for c in cards} - live_kinds)}


def _answers(card: dict) -> int:
    """Windows the card answered (0 for a card without a reaction)."""
    return card.get("answered", {}).get("times", 0)


def _entries(card: dict, zones) -> int:
    return sum(card["entered"].get(z, {}).get("times", 0) for z in zones)


def _decisions(counts) -> dict:
    total = sum(cs.decisions for cs in counts)
    forced = sum(cs.decisions - cs.choices for cs in counts)
    return {"total": total, "forced": forced, "forced_share": forced / total if total else 0.0}


# ---------------------------------------------------------------- terminal

def _pct(x) -> str:
    return f"{100 * x:.1f}%"


def _ci(d) -> str:
    return f"{_pct(d['rate'] if 'rate' in d else d['share'])} [{_pct(d['lo'])}–{_pct(d['hi'])}]"


def _seconds(s: float) -> str:
    return f"{s:.3f}s" if s >= 0.01 else f"{1000 * s:.2f}ms"


def _num(x, digits=1) -> str:
    if x is None:
        return "–"
    return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}"


def print_report(report: dict, console=None, card_rows: int = 40) -> None:
    from rich.table import Table

    from cardc.render.terminal import console as terminal_console
    console = console or terminal_console()
    plan, run = report["plan"], report["run"]
    over = ", ".join(f"{k}={v}" for k, v in report["overrides"].items())
    console.print(Text.assemble((report["name"], "bold"), f": {plan['games']:,} games, players "
                                f"{','.join(map(str, plan['players']))}, agents {','.join(plan['agents'])}, "
                                f"seed {plan['seed']}" + (f", with {over}" if over else "")))
    if run.get("seconds"):
        console.print(f"played in {run['seconds']:.1f}s on {run.get('workers', 1)} worker(s): "
                      f"{run['games_per_s']:.1f} games/s")
    think = run.get("seconds_per_decision")
    if think:
        console.print("CPU seconds per decision (with 2+ options, one core): "
                      + ", ".join(f"{agent} {_seconds(s)}" for agent, s in think.items()))

    t = Table(title="How games end")
    for col in ("ending", "games", "share [95% CI]"):
        t.add_column(col, justify="right" if col != "ending" else "left", overflow="fold")
    for name, e in report["endings"].items():
        if e["games"]:
            t.add_row(name.replace("_", " "), f"{e['games']:,}", _ci(e))
    console.print(t)

    timing = report["timing"]
    t = Table(title="Game length" + (f" (assuming {timing['seconds_per_action']}s per decision)"
                                     if timing["assumed"] else ""))
    for col in ("players", "games", "turns mean", "turns p10–p90", "minutes mean",
                "minutes p10–p90", "vs target", "one-option decisions"):
        t.add_column(col, justify="right", overflow="fold")
    for n, L in report["length"].items():
        tu, mi = L["turns"], L["minutes"]
        target = L.get("target")
        vs = (f"{target['diff']:+.0f} min ({100 * target['ratio']:+.0f}%)" if target else "–")
        t.add_row(n, f"{L['games']:,}", _num(tu.get("mean")), f"{tu.get('p10')}–{tu.get('p90')}",
                  _num(mi.get("mean")), f"{mi.get('p10')}–{mi.get('p90')}", vs, _pct(L["forced_share"]))
    console.print(t)

    for n, seats in report["seats"].items():
        t = Table(title=f"{n} players: win rate and finishing place by seat")
        t.add_column("seat", overflow="fold")
        t.add_column("win rate [95% CI]", justify="right", overflow="fold")
        for p in range(1, int(n) + 1):
            t.add_column(f"place {p}", justify="right", overflow="fold")
        for win, places in zip(seats["win"], seats["places"], strict=False):
            t.add_row(str(win["seat"]), _ci(win), *(_pct(c["share"]) for c in places))
        console.print(t)

    for title, key in (("agent", "agents"), ("starting choice", "starts")):
        by = report[key]
        if not by:
            continue
        t = Table(title=f"Win rate by {title}")
        for col in ("players", title, "seats played", "win rate [95% CI]"):
            t.add_column(col, justify="left" if col == title else "right", overflow="fold")
        for n, rows in by.items():
            for name, tally in rows.items():
                t.add_row(n, name, f"{tally['trials']:,}", _ci(tally))
        console.print(t)

    t = Table(title="Scores")
    for col in ("players", "final mean", "final sd", "winning median", "winning p10–p90",
                "lead changes mean"):
        t.add_column(col, justify="right", overflow="fold")
    for n, s in report["scores"].items():
        f, w, lc = s["final"], s["winning"], s["lead_changes"]
        t.add_row(n, _num(f.get("mean")), _num(f.get("sd")), _num(w.get("median")),
                  f"{w.get('p10')}–{w.get('p90')}", _num(lc.get("mean"), 2))
    console.print(t)

    if report.get("quality"):
        t = _table("Quality measures (Browne; Ludii), 95% intervals",
                   ("measure", *(f"{n} players" for n in report["quality"])), left=("measure",))
        for name, cells in quality_rows(report["quality"]):
            t.add_row(name, *cells.values())
        console.print(t)

    zones = report["use_zones"]
    t = Table(title=f"Card usage (win rate: the seats that did it; top {card_rows} by plays)")
    answers = any("answered" in c for c in report["cards"])
    for col in ("card", "kind", "resolved/game", "in games", "win when resolved",
                *(("answered/game",) if answers else ()), *(f"→{z}/game" for z in zones)):
        t.add_column(col, justify="left" if col in ("card", "kind") else "right", overflow="fold")
    cards = sorted(report["cards"], key=lambda c: (-c["resolved"]["times"], -_answers(c),
                                                   -_entries(c, zones), c["id"]))
    shown = [c for c in cards if c["resolved"]["times"] or _answers(c) or _entries(c, zones)][:card_rows]
    for c in shown:
        r = c["resolved"]
        t.add_row(c["id"], c["kind"], f"{r['per_game']:.2f}", _pct(r["game_share"]),
                  _ci(r["win"]) if r["win"]["trials"] else "–",
                  *((f"{c['answered']['per_game']:.2f}" if "answered" in c else "–",) if answers else ()),
                  *(f"{c['entered'][z]['per_game']:.2f}" if z in c["entered"] else "–" for z in zones))
    console.print(t)
    if len(shown) < len(cards):
        console.print(f"({len(cards) - len(shown)} more cards not shown; all are in the JSON and HTML reports)")
    unused = report["unused"]
    if unused["never_resolved"]:
        console.print(Text.assemble(("Cards with an effect no agent ever resolved:", "yellow"),
                                    " " + ", ".join(unused["never_resolved"])))
    if unused["never_used"]:
        console.print(Text.assemble((f"Cards never resolved nor put in {', '.join(zones) or '(no zone)'}:",
                                     "yellow"), " " + ", ".join(unused["never_used"])))
    if unused["kinds_never_used"]:
        console.print("Kinds whose cards never go there (choose zones with --use-zones): "
                      + ", ".join(unused["kinds_never_used"]))
    d = report["decisions"]
    console.print(f"Decisions: {d['total']:,}, of which {_pct(d['forced_share'])} had only one "
                  "legal action.")
    holes = report["holes"]
    if holes or report["holes_not_saved"]:
        console.print(Text.assemble((f"Rule holes: {len(holes) + report['holes_not_saved']} games", "red"),
                                    f" (saved {len(holes)}):"))
        for h in holes[:10]:
            console.print(f"  {h['ending']} game {h['index']} ({h['players']}p, seed {h['seed']}"
                          f"{', turn ' + str(h['turns']) if h['turns'] else ''})"
                          + (f": {h['fault']}" if h["fault"] else ""), soft_wrap=True, markup=False)
            console.print(f"    {h['replay']}", soft_wrap=True, markup=False, highlight=False)
        if len(holes) > 10:
            console.print(f"  … and {len(holes) - 10} more in the JSON report")


# ---------------------------------------------------------------- compare

def compare(a: dict, b: dict) -> list[dict]:
    """Rows of B against A: every shared metric, every win rate and every
    quality measure (`quality.compare_rows`, named `quality <n>p ...`), the
    difference B - A and its 95% interval.  The runs are independent: rates
    use Newcombe's interval, other means Welch's t interval.  A difference
    is significant when it stays so after Holm's correction over all the
    rows (`stats.mark_significant`): the quality measures are one family
    with the rest, so adding them never makes a mark easier to get."""
    rows = []
    for name in sorted(set(a["metrics"]) & set(b["metrics"])):
        ma, mb = a["metrics"][name], b["metrics"][name]
        if is_rate(name):
            ma, mb = _as_tally(ma), _as_tally(mb)
        rows.append((name, ma, mb))
    for n in sorted(set(a["seats"]) & set(b["seats"]), key=int):
        for wa, wb in zip(a["seats"][n]["win"], b["seats"][n]["win"], strict=False):
            rows.append((f"win {n}p seat {wa['seat']}", wa, wb))
    for section in ("agents", "starts"):
        for n in sorted(set(a[section]) & set(b[section])):
            if n != "all":
                for key in sorted(set(a[section][n]) & set(b[section][n])):
                    rows.append((f"win {n}p {key}", a[section][n][key], b[section][n][key]))
    out = []
    for what, x, y in rows:
        if "trials" in x:
            if x["trials"] and y["trials"]:
                out.append({"what": what, "a": x["rate"], "b": y["rate"],
                            **newcombe(x["wins"], x["trials"], y["wins"], y["trials"])})
        elif x["n"] and y["n"]:
            out.append({"what": what, "a": x["mean"], "b": y["mean"], **welch(x, y)})
    out += quality_compare(a, b)
    mark_significant(out)
    tests = {r["what"]: r for r in out}
    for r in out:
        source = tests.get(r.get("same_as"))
        if source is not None:       # the same test shown another way: its verdict
            r.update({k: source.get(k) for k in ("p", "p_adjusted", "significant", "significant_alone")})
    return out


def _as_tally(m: dict) -> dict:
    """A 0/1 metric's summary as wins out of trials."""
    return {"wins": round(m["mean"] * m["n"]), "trials": m["n"], "rate": m["mean"]}


def print_compare(a: dict, b: dict, rows: list, console=None, only_significant=False,
                  answer=()) -> None:
    from cardc.render.terminal import console as terminal_console
    console = console or terminal_console()
    for line in answer:
        console.print(line, markup=False, highlight=False)
    shown = [r for r in rows if r["significant"] or not only_significant]
    for title, group in compare_groups(a, b, shown):
        t = _table(title, ("", "A", "B", "B − A", "change", "95% interval"))
        for r in group:
            t.add_row(compare_name(r), *compare_cells(r),
                      style="bold" if r["significant"] else None)
        console.print(t)


def compare_groups(a: dict, b: dict, rows: list) -> list[tuple[str, list]]:
    """The two tables of `cardc compare`: the outcome rows and the quality
    measures (left out when empty), each with its title."""
    quality = [r for r in rows if r["what"].startswith(QUALITY)]
    groups = [(f"B − A: A = {_label(a)}, B = {_label(b)}  (* = significant at 5% after "
               "Holm's correction over all rows, both tables)",
               [r for r in rows if not r["what"].startswith(QUALITY)])]
    if quality:
        groups.append(("Quality measures (Browne; Ludii), B − A: drama mirrors decisiveness and "
                       "first-player advantage mirrors seat 1's win rate (the same test each)",
                       quality))
    return groups


def compare_name(r: dict) -> str:
    """A compare row's name as its table shows it (`3p decisiveness` in the
    quality table), starred when significant."""
    return r["what"].removeprefix(QUALITY) + (" *" if r["significant"] else "")


def compare_cells(r: dict) -> tuple[str, ...]:
    """A compare row's A, B, B − A, change and interval in the report's units."""
    n = r["what"]
    return (units.value(n, r["a"]), units.value(n, r["b"]), units.difference(n, r["diff"]),
            units.change({"base": r["a"], "diff": r["diff"]}, n), units.interval(n, r["lo"], r["hi"]))


def _table(title: str, columns, caption=None, left=("", "metric", "card", "agent")):
    """A rich table whose cells wrap, never cut: a narrow terminal or a
    file of 60 columns still shows every character (long words fold)."""
    from rich.table import Table
    t = Table(title=title, caption=caption)
    for col in columns:
        t.add_column(col, justify="left" if col in left else "right", overflow="fold")
    return t


def _label(report) -> str:
    over = ",".join(f"{k}={v}" for k, v in report.get("overrides", {}).items())
    return f"{report['game']} ({report['plan']['games']} games{', ' + over if over else ''})"


# ---------------------------------------------------------------- sweep

def print_sweep(sweep: dict, console=None) -> None:
    from cardc.render.terminal import console as terminal_console
    console = console or terminal_console()
    for line in sweep.get("answer", ()):
        console.print(line, markup=False, highlight=False)
    console.print(Text.assemble((sweep["name"], "bold"), f" sweep: {sweep['games']:,} paired games per variant "
                                f"(seed {sweep['seed']}); differences are variant − baseline with 95% intervals "
                                "(paired t), win rates in percent and their differences in points; * = significant "
                                "after Holm's correction over every outcome metric of every variant (card use: a "
                                "family of its own)" + (f"; {sweep['sequential']['error_rates']}"
                                                        if sweep.get("sequential") else "")))
    for v in sweep["variants"]:
        verdicts = v.get("verdicts") or {}
        t = _table(", ".join(f"{k}={x}" for k, x in v["set"].items()),
                   ("metric", "baseline", "variant", "difference", "change", "95% interval",
                    *(("decided",) if verdicts else ())))
        for name, d in v["diffs"].items():
            star = d["significant"]
            t.add_row(name + (" *" if star else ""), units.value(name, d["base"]),
                      units.value(name, d["variant"]), units.difference(name, d["diff"]),
                      units.change(d), units.interval(name, d["lo"], d["hi"]),
                      *((verdicts.get(name, "–"),) if verdicts else ()),
                      style="bold" if star else None)
        console.print(t)
        if v.get("cards"):
            _print_card_use(console, v)


def card_rows(variant: dict, closest: int = 5) -> tuple[list, list]:
    """The card-use rows worth showing: the significant ones (by adjusted
    p), and, while fewer than `closest` are, the tested rows nearest to
    significance, so a report never lists every card of the game."""
    tested = sorted((d for d in variant.get("cards", {}).values() if d.get("tested")),
                    key=lambda d: (d["p_adjusted"], d["p"], d["card"], d["agent"]))
    marked = [d for d in tested if d["significant"]]
    return marked, [d for d in tested if not d["significant"]][:max(0, closest - len(marked))]


def _card_summary(variant: dict) -> str:
    rows = list(variant.get("cards", {}).values())
    tested = [d for d in rows if d.get("tested")]
    marked = sum(d["significant"] for d in tested)
    return (f"{len(tested)} card rows tested (Holm over them), {marked} significant; "
            f"{len(rows) - len(tested)} rows never differed between the paired games")


def _print_card_use(console, variant: dict) -> None:
    marked, near = card_rows(variant)
    t = _table("card use: times a seat of the agent resolved the card per game, or "
               "answered a window with it (“(answer)”) (JSON: cards.played.<card id>.<agent>, "
               "cards.answered.<card id>.<agent>)",
               ("card", "agent", "baseline", "variant", "difference", "change", "95% interval",
                "p (Holm)"),
               caption=_card_summary(variant) + ("; below the line: the closest, not significant"
                                                 if near else ""))
    for i, d in enumerate(marked + near):
        star = d["significant"]
        t.add_row(d["name"] + (" *" if star else ""), d["agent"],
                  f"{d['base']:.3f}", f"{d['variant']:.3f}", f"{d['diff']:+.3f}", _relative(d),
                  f"[{d['lo']:+.3f}, {d['hi']:+.3f}]", _p(d["p_adjusted"]),
                  style="bold" if star else None, end_section=i == len(marked) - 1 and bool(near))
    console.print(t)


def _p(p: float) -> str:
    """A p-value; below double precision's reach (1 - cdf rounds to 0) it
    is shown as a bound, never as an impossible 0."""
    return f"{p:.2g}" if p >= 1e-15 else "<1e-15"


def _relative(d: dict) -> str:
    """The difference as a share of the baseline (a longer game plays every
    card a little more: a uniform small change is the length, not a choice)."""
    if not d["base"]:
        return "new"
    share = 100 * d["diff"] / d["base"]
    return f"{share:+.1f}%" if abs(share) < 10 else f"{share:+.0f}%"


# ---------------------------------------------------------------- HTML

CSS = """body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}table{border-collapse:collapse;margin:.5em 0}
td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}td:first-child,th:first-child{text-align:left}
.note{color:#666}.bad{color:#b3403a}svg{display:block;margin:.5em 0}"""


def write_html(report: dict, path) -> None:
    from pathlib import Path

    from cardc.render.atomic import write_atomic
    write_atomic(Path(path), render_html(report).encode("utf-8"))


def render_html(report: dict) -> str:
    e = html.escape
    plan, timing = report["plan"], report["timing"]
    over = ", ".join(f"{k}={v}" for k, v in report["overrides"].items())
    parts = [f"<!doctype html><meta charset=utf-8><title>{e(report['name'])}: simulation</title>"
             f"<style>{CSS}</style><h1>{e(report['name'])}: {plan['games']:,} simulated games</h1>",
             f"<p class=note>players {e(','.join(map(str, plan['players'])))}; agents "
             f"{e(','.join(plan['agents']))}; seed {plan['seed']}"
             + (f"; with {e(over)}" if over else "") + f"; bundle {report['bundle'][:12]}. "
             "Intervals are 95% (Wilson for rates).</p>"]

    parts.append("<h2>How games end</h2>")
    parts.append(svg_bars([(k.replace("_", " "), v["share"], v["lo"], v["hi"])
                           for k, v in report["endings"].items() if v["games"]], percent=True))

    parts.append("<h2>Game length</h2>")
    note = (f"Minutes assume {timing['seconds_per_action']}s per decision with two or more options"
            + (f" and {timing['seconds_per_turn']}s per turn" if timing["seconds_per_turn"] else "")
            + (" (a default: the game's timing does not say)" if timing["assumed"] else "") + ".")
    parts.append(f"<p class=note>{e(note)}</p>")
    for n, L in report["length"].items():
        tu, mi = L["turns"], L["minutes"]
        line = (f"{n} players: {L['games']:,} games, {tu.get('mean', 0):.1f} turns on average "
                f"(p10 {tu.get('p10')}, p90 {tu.get('p90')}), about {mi.get('mean', 0):.0f} minutes")
        if "target" in L:
            tg = L["target"]
            line += (f"; target {tg['minutes']} minutes: {tg['diff']:+.0f} min ({100 * tg['ratio']:+.0f}%), "
                     f"{100 * tg['within_20pc']:.0f}% of games within 20% of it")
        parts.append(f"<h3>{e(line)}</h3>")
        parts.append(svg_histogram(tu.get("counts", []), "turns"))

    for n, seats in report["seats"].items():
        parts.append(f"<h2>{n} players: seats</h2>")
        parts.append(svg_bars([(f"seat {w['seat']}", w["rate"], w["lo"], w["hi"]) for w in seats["win"]],
                              percent=True))
        head = "".join(f"<th>place {p}</th>" for p in range(1, int(n) + 1))
        rows = "".join(f"<tr><td>seat {s + 1}</td>" + "".join(
            f"<td style='background:{_heat(c['share'])}'>{100 * c['share']:.1f}%</td>" for c in row)
            + "</tr>" for s, row in enumerate(seats["places"]))
        parts.append(f"<table><tr><th>seat</th>{head}</tr>{rows}</table>")

    for title, key in (("agent", "agents"), ("starting choice", "starts")):
        if report[key]:
            parts.append(f"<h2>Win rate by {title}</h2>")
            for n, rows in report[key].items():
                parts.append(f"<h3>{'all player counts' if n == 'all' else n + ' players'}</h3>")
                parts.append(svg_bars([(k, t["rate"], t["lo"], t["hi"]) for k, t in rows.items()],
                                      percent=True))

    parts.append("<h2>Scores over the game</h2><p class=note>Mean score of the leader and of all "
                 "seats after each turn, over the games still running.</p>")
    for n, s in report["scores"].items():
        f, lc = s["final"], s["lead_changes"]
        parts.append(f"<h3>{n} players: final score mean {f.get('mean', 0):.1f} (sd {f.get('sd', 0):.1f}), "
                     f"{lc.get('mean', 0):.2f} lead changes per game</h3>")
        parts.append(svg_lines({"leader": [(r[0], r[2]) for r in s["by_turn"]],
                                "all seats": [(r[0], r[3]) for r in s["by_turn"]]}, "turns"))
        parts.append(svg_histogram(f.get("counts", []), "final score"))

    if report.get("quality"):
        head = "".join(f"<th>{e(n)} players</th>" for n in report["quality"])
        body = "".join(f"<tr><td>{e(name)}</td>" + "".join(f"<td>{e(c)}</td>" for c in cells.values())
                       + "</tr>" for name, cells in quality_rows(report["quality"]))
        parts.append("<h2>Quality measures</h2><p class=note>From Browne's and Ludii's metrics of "
                     "automated game evaluation, per player count, with 95% intervals.</p>"
                     f"<table class=quality><tr><th>measure</th>{head}</tr>{body}</table>")

    parts.append("<h2>Cards</h2><p class=note>Resolved = played for its effect; answered = a "
                 "reaction window answered with it. Win rate: of the seats that resolved it in a "
                 "game.</p>")
    zones = report["use_zones"]
    cards = sorted(report["cards"], key=lambda c: (-c["resolved"]["times"], -_entries(c, zones), c["id"]))
    parts.append(svg_bars([(c["id"], c["resolved"]["per_game"], None, None)
                           for c in cards if c["resolved"]["times"]]))
    answers = any("answered" in c for c in report["cards"])
    head = ("<th>answered/game</th>" if answers else "") + "".join(f"<th>→{e(z)}/game</th>" for z in zones)
    rows = []
    for c in cards:
        r = c["resolved"]
        win = _ci(r["win"]) if r["win"]["trials"] else "–"
        cells = "".join(f"<td>{c['entered'][z]['per_game']:.2f}</td>" if z in c["entered"] else "<td>–</td>"
                        for z in zones)
        if answers:
            cells = (f"<td>{c['answered']['per_game']:.2f}</td>" if "answered" in c else "<td>–</td>") + cells
        rows.append(f"<tr><td>{e(c['name'])} <span class=note>{e(c['id'])}</span></td><td>{e(c['kind'])}</td>"
                    f"<td>{r['per_game']:.2f}</td><td>{100 * r['game_share']:.1f}%</td><td>{win}</td>{cells}</tr>")
    parts.append("<table><tr><th>card</th><th>kind</th><th>resolved/game</th><th>in games</th>"
                 f"<th>win when resolved</th>{head}</tr>{''.join(rows)}</table>")
    unused = report["unused"]
    for label, ids in (("Cards with an effect never resolved", unused["never_resolved"]),
                       (f"Cards never resolved nor put in {', '.join(zones)}", unused["never_used"]),
                       ("Kinds whose cards never go there", unused["kinds_never_used"])):
        if ids:
            parts.append(f"<p class=bad>{e(label)}: {e(', '.join(ids))}</p>")
    d = report["decisions"]
    parts.append(f"<h2>Decisions</h2><p>{d['total']:,} decisions, {100 * d['forced_share']:.1f}% with "
                 "only one legal action.</p>")
    holes = report["holes"]
    parts.append(f"<h2>Rule holes</h2><p>{len(holes) + report['holes_not_saved']} games hit the turn "
                 f"cap, stalled or faulted; {len(holes)} saved as replays.</p><ul>")
    for h in holes:
        parts.append(f"<li>{e(h['ending'])}: game {h['index']} ({h['players']}p, seed {h['seed']}): "
                     f"<code>{e(h['replay'])}</code>" + (f"<br><span class=bad>{e(h['fault'])}</span>"
                                                          if h["fault"] else "") + "</li>")
    parts.append("</ul>")
    return "\n".join(parts) + "\n"


def render_sweep_html(sweep: dict) -> str:
    e = html.escape
    parts = [f"<!doctype html><meta charset=utf-8><title>{e(sweep['name'])}: sweep</title>"
             f"<style>{CSS}</style><h1>{e(sweep['name'])}: sweep of {sweep['games']:,} paired games</h1>",
             "<div class=answer>" + "".join(f"<p>{e(line.strip())}</p>" for line in sweep.get("answer", ()))
             + "</div>",
             "<p class=note>Each bar: variant − baseline on the same seeds, with its 95% interval"
             " (win rates in percentage points).</p>"]
    names = sorted({m for v in sweep["variants"] for m in v["diffs"]})
    for name in names:
        items = [(", ".join(f"{k}={x}" for k, x in v["set"].items()), v["diffs"][name]["diff"],
                  v["diffs"][name]["lo"], v["diffs"][name]["hi"])
                 for v in sweep["variants"] if name in v["diffs"]]
        parts.append(f"<h2>{e(name)}</h2>" + svg_bars(items, percent=units.rate_metric(name)))
    for v in sweep["variants"]:
        if not v.get("cards"):
            continue
        label = ", ".join(f"{k}={x}" for k, x in v["set"].items())
        marked, near = card_rows(v)
        parts.append(f"<h2>Card use, {e(label)}</h2><p class=note>Times a seat of the agent "
                     "resolved the card per game (or answered a window with it: “(answer)”), variant − baseline; "
                     "a family of its own for "
                     f"Holm's correction. {e(_card_summary(v))}.</p>")
        if marked:
            parts.append(svg_bars([(f"{d['name']} · {d['agent']}", d["diff"], d["lo"], d["hi"])
                                   for d in marked]))
        rows = "".join(
            f"<tr{' class=bad' if d['significant'] else ''}><td>{e(d['name'])} "
            f"<span class=note>{e(d['card'])}</span>{' *' if d['significant'] else ''}</td>"
            f"<td>{e(d['agent'])}</td><td>{d['base']:.3f}</td><td>{d['variant']:.3f}</td>"
            f"<td>{d['diff']:+.3f}</td><td>{_relative(d)}</td><td>[{d['lo']:+.3f}, {d['hi']:+.3f}]</td>"
            f"<td>{e(_p(d['p_adjusted']))}</td></tr>" for d in marked + near)
        if rows:
            parts.append("<table><tr><th>card</th><th>agent</th><th>baseline</th><th>variant</th>"
                         "<th>difference</th><th>change</th><th>95% interval</th><th>p (Holm)</th></tr>"
                         f"{rows}</table>" + ("<p class=note>Rows without * are the closest to "
                                              "significance, not significant.</p>" if near else ""))
    return "\n".join(parts) + "\n"


def render_compare_html(a: dict, b: dict, rows: list, answer=()) -> str:
    """`cardc compare --html`: the answer, then the same two tables as the
    terminal's (outcomes, quality measures), significant rows marked."""
    e = html.escape
    parts = [f"<!doctype html><meta charset=utf-8><title>{e(a['name'])}: comparison</title>"
             f"<style>{CSS}</style><h1>{e(a['name'])}: B against A</h1>",
             "<div class=answer>" + "".join(f"<p>{e(line.strip())}</p>" for line in answer) + "</div>"]
    for i, (title, group) in enumerate(compare_groups(a, b, rows)):
        body = "".join(f"<tr{' class=bad' if r['significant'] else ''}><td>{e(compare_name(r))}</td>"
                       + "".join(f"<td>{e(c)}</td>" for c in compare_cells(r)) + "</tr>" for r in group)
        parts.append(f"<h2>{'Quality measures' if i else 'Outcomes'}</h2><p class=note>{e(title)}</p>"
                     f"<table{' class=quality' if i else ''}><tr><th></th><th>A</th><th>B</th>"
                     f"<th>B − A</th><th>change</th><th>95% interval</th></tr>{body}</table>")
    return "\n".join(parts) + "\n"


def _heat(share: float) -> str:
    a = min(1.0, max(0.0, share))
    return f"rgba(58,123,213,{0.1 + 0.6 * a:.2f})"


# ---------------------------------------------------------------- SVG charts

def svg_bars(items, percent=False, width=640) -> str:
    """Horizontal bars, one per (label, value, lo, hi); lo/hi draw an
    interval whisker.  Negative values extend left of a zero line."""
    if not items:
        return "<p class=note>(nothing to show)</p>"
    e = html.escape
    row, label_w, pad = 18, 170, 60
    values = [v for _, v, lo, hi in items for v in (v, lo, hi) if v is not None]
    top = max(max(values), 0) or 1
    bottom = min(min(values), 0)
    span = top - bottom or 1
    plot = width - label_w - pad

    def x(v):
        return label_w + (v - bottom) / span * plot
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{row * len(items) + 10}' "
           "font-size='11' font-family='sans-serif'>"]
    for i, (label, v, lo, hi) in enumerate(items):
        y = 5 + i * row
        x0, x1 = sorted((x(0), x(v)))
        text = f"{100 * v:.1f}%" if percent else f"{v:.3g}"
        out.append(f"<text x='{label_w - 6}' y='{y + 12}' text-anchor='end'>{e(str(label)[:28])}</text>"
                   f"<rect x='{x0:.1f}' y='{y + 2}' width='{max(x1 - x0, 0.5):.1f}' height='{row - 5}' "
                   f"fill='#3a7bd5'><title>{e(str(label))}: {text}</title></rect>")
        if lo is not None and hi is not None:
            out.append(f"<line x1='{x(lo):.1f}' x2='{x(hi):.1f}' y1='{y + 8}' y2='{y + 8}' stroke='#222'/>"
                       f"<line x1='{x(lo):.1f}' x2='{x(lo):.1f}' y1='{y + 4}' y2='{y + 12}' stroke='#222'/>"
                       f"<line x1='{x(hi):.1f}' x2='{x(hi):.1f}' y1='{y + 4}' y2='{y + 12}' stroke='#222'/>")
        out.append(f"<text x='{max(x1, x(hi) if hi is not None else x1) + 4:.1f}' y='{y + 12}'>{text}</text>")
    if bottom < 0:
        out.append(f"<line x1='{x(0):.1f}' x2='{x(0):.1f}' y1='0' y2='{row * len(items) + 10}' stroke='#999'/>")
    out.append("</svg>")
    return "".join(out)


def svg_histogram(counts, xlabel: str, width=640, height=160, bins=40) -> str:
    """Vertical bars of [value, count] pairs, grouped into at most `bins` bins."""
    if not counts:
        return "<p class=note>(no data)</p>"
    lo, hi = counts[0][0], counts[-1][0]
    step = max(1, math.ceil((hi - lo + 1) / bins))
    binned = defaultdict(int)
    for v, c in counts:
        binned[lo + (v - lo) // step * step] += c
    keys = sorted(binned)
    nb = (hi - lo) // step + 1
    most = max(binned.values())
    bw = (width - 50) / nb
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height + 30}' "
           "font-size='11' font-family='sans-serif'>"]
    for k in keys:
        h = binned[k] / most * height
        xx = 40 + (k - lo) // step * bw
        label = f"{k}" if step == 1 else f"{k}–{k + step - 1}"
        out.append(f"<rect x='{xx:.1f}' y='{height - h + 5:.1f}' width='{max(bw - 1, 0.5):.1f}' "
                   f"height='{h:.1f}' fill='#3aa55b'><title>{label}: {binned[k]}</title></rect>")
    out.append(f"<text x='40' y='{height + 20}'>{lo}</text>"
               f"<text x='{width - 10}' y='{height + 20}' text-anchor='end'>{hi} {html.escape(xlabel)}</text>"
               f"<text x='4' y='14'>{most}</text></svg>")
    return "".join(out)


def svg_lines(series: dict, xlabel: str, width=640, height=200) -> str:
    """One polyline per named series of (x, y) points, sharing the axes."""
    points = [p for s in series.values() for p in s]
    if not points:
        return "<p class=note>(no data)</p>"
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(0, min(p[1] for p in points)), max(p[1] for p in points)
    sx = (width - 60) / ((x1 - x0) or 1)
    sy = height / ((y1 - y0) or 1)
    colours = ["#b3403a", "#3a7bd5", "#3aa55b", "#8a5ac2"]
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height + 30}' "
           "font-size='11' font-family='sans-serif'>"]
    for i, (name, pts) in enumerate(series.items()):
        path = " ".join(f"{50 + (x - x0) * sx:.1f},{height + 5 - (y - y0) * sy:.1f}" for x, y in pts)
        colour = colours[i % len(colours)]
        out.append(f"<polyline fill='none' stroke='{colour}' stroke-width='1.5' points='{path}'/>"
                   f"<text x='{60 + 90 * i}' y='{height + 25}' fill='{colour}'>{html.escape(name)}</text>")
    out.append(f"<text x='2' y='12'>{y1:.0f}</text><text x='2' y='{height + 5}'>{y0:.0f}</text>"
               f"<text x='{width - 10}' y='{height + 25}' text-anchor='end'>{x0}–{x1} {html.escape(xlabel)}</text>"
               "</svg>")
    return "".join(out)
