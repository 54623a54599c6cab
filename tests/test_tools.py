"""The measuring tools of tools/: their counts are the same on every run
(that is what makes them worth more than a timer on a shared machine)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bytecodes_are_counted_the_same_on_every_run_and_by_generated_line(mini_game):
    bytecodes = _tool("bytecodes")
    bytecodes.count(mini_game, 2, 2)    # what these games compile on first use is compiled now
    first = bytecodes.count(mini_game, 2, 2)
    again = bytecodes.count(mini_game, 2, 2)
    assert first == again and first[0] > 0
    generated = {f for (f, _, line), n in first[1].items() if f.startswith("<cardc _blk") and line}
    assert generated, "the generated blocks' lines are counted"


def test_bytecodes_lists_a_generated_functions_lines(capsys):
    bytecodes = _tool("bytecodes")
    assert bytecodes.main([str(REPO / "generated" / "unicorn.json"), "1", "--lines", "_menu",
                           "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "bytecodes a decision" in out[0] and len(out) == 4 and all("_menu" in x for x in out[1:])


def test_the_footprint_counts_distinct_bytecodes_and_grows_with_the_share(mini_game):
    """`--sites`: how many distinct bytecodes run each share of the work;
    the same on every run, more for a larger share, never more than were run."""
    bytecodes = _tool("bytecodes")
    bytecodes.count(mini_game, 2, 2, sites=True)
    first = bytecodes.count(mini_game, 2, 2, sites=True)
    assert first == bytecodes.count(mini_game, 2, 2, sites=True)
    shares = bytecodes.footprint(first[1])
    sizes = [shares[s] for s in bytecodes.SHARES]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1] <= len(first[1])
    assert bytecodes.footprint({("f", "g", 1, 0): 9, ("f", "g", 1, 2): 1}) == \
        {0.5: 1, 0.8: 1, 0.9: 1, 0.95: 2, 0.99: 2}


def test_the_objects_made_are_counted_the_same_on_every_run(mini_game):
    """`--made`: which functions build lists, dicts, functions or generators,
    by opcode; the same on every run (a menu builds its options' tuples)."""
    bytecodes = _tool("bytecodes")
    bytecodes.made(mini_game, 2, 2)
    first = bytecodes.made(mini_game, 2, 2)
    assert first == bytecodes.made(mini_game, 2, 2) and first[0] > 0
    assert first[1] and all(op in bytecodes.MAKERS for _, _, op in first[1])
    assert any(op == "BUILD_TUPLE" and function.startswith("_menu") for _, function, op in first[1])


def test_the_digest_of_many_games_is_the_same_on_every_run(mini_game):
    """tools/digest.py: what an engine change that changes nothing must keep;
    other games give another digest."""
    digest = _tool("digest").digest
    first = digest(mini_game, randoms=3, greedies=1)
    assert first == digest(mini_game, randoms=3, greedies=1)
    assert first != digest(mini_game, randoms=4, greedies=1)


def test_instructions_a_decision_are_the_difference_of_two_counted_runs(capsys):
    """`tools/instructions.py BUNDLE --between A B` runs itself under valgrind
    twice; what it reads from each run, and what it makes of the two."""
    instructions = _tool("instructions")
    out = ("==1== Events    : Ir\n==1== Collected : 2174067430\n==1==\n3152\n")
    assert instructions.counted(out) == (2174067430, 3152)
    assert instructions.per_decision((2_000, 10), (5_000, 40)) == 100
    with pytest.raises(SystemExit):
        instructions.counted("valgrind: command failed\n")
    with pytest.raises(SystemExit):
        instructions.per_decision((5_000, 40), (2_000, 10))
    # without --between: the games are played and their decisions printed
    assert instructions.main([str(REPO / "generated" / "unicorn.json"), "1"]) == 0
    assert int(capsys.readouterr().out.strip()) > 0


def test_the_reference_engine_is_counted_the_same_way(tmp_path):
    """`bytecodes.py pyminion N`: the anchors' BigMoney games, three played
    first and not counted, then N counted, each decision as the anchors
    count it; here a stand-in module with the anchors' entry point."""
    (tmp_path / "anchors.py").write_text(
        "def pyminion_bigmoney(seed):\n"
        "    def play_one():\n"
        "        total = 0\n"
        "        for i in range(10):\n"
        "            total += i\n"
        "        return 5\n"
        "    return play_one\n")
    bytecodes = _tool("bytecodes")
    decisions, counts = bytecodes.count_anchor(4, anchors=tmp_path)
    assert decisions == 20 and sum(counts.values()) > 0
    assert (decisions, counts) == bytecodes.count_anchor(4, anchors=tmp_path)
    assert {function for _, function, _ in counts} == {"play_one", "<lambda>", "<genexpr>"}


def test_without_the_reference_engine_the_count_says_what_to_run(tmp_path):
    bytecodes = _tool("bytecodes")
    with pytest.raises(SystemExit, match="run this file with the anchor's Python"):
        bytecodes.count_anchor(1, anchors=tmp_path)
