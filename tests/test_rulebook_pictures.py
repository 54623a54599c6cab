"""The rulebook's pictures come from engine states (issue 42): the setup
picture is the table once setup is over, drawn with the cards' own faces
and backs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardc.render.setup_picture import after_setup, setup_piles

REPO = Path(__file__).resolve().parent.parent


def shipped(game: str) -> dict:
    return json.loads((REPO / "generated" / f"{game}.json").read_text())


def test_unicorn_setup_picture_shows_the_table_after_setup_not_a_deal_in_progress():
    # issue 42: the picture showed a startup deal still face down and the
    # references on the table, while the text says each player keeps one
    # startup face up and takes a reference
    piles, players = setup_piles(shipped("unicorn"))
    shown = {(p.label, p.shared): (p.count, p.face_up) for p in piles}
    assert players == 3
    assert not any("deal" in p.label.lower() for p in piles)
    assert shown[("Startup", False)] == (1, True)
    assert shown[("Reference", False)] == (1, True)
    assert shown[("Reference (the rest, in the box)", True)] == (5 - players, True)
    assert shown[("Hand", False)] == (5, False)


@pytest.mark.parametrize("game", ["unicorn", "startup", "ipo"])
def test_the_setup_state_is_the_first_decision_of_the_first_turn(game):
    _, state = after_setup(shipped(game), 2 if game != "unicorn" else 3)
    assert state.turn == 1 and not state.is_terminal()


def test_the_setup_picture_draws_the_cards_as_they_print():
    import io

    from pypdf import PdfReader

    from cardc.render.rulebook import render_pdf

    bundle = shipped("unicorn")
    piles, _ = setup_piles(bundle)
    startup = next(p for p in piles if p.label == "Startup")
    name = next(c["name"] for c in bundle["cards"] if c["id"] == startup.card_id)
    reader = PdfReader(io.BytesIO(render_pdf(bundle, gallery=False)))
    page = next(p for p in reader.pages if "On the table" in p.extract_text())
    text = page.extract_text()
    assert name in text and "UNICORN" in text  # the startup's own face, and the draw pile's back


def test_ipo_board_diagrams_of_founding_growing_merging_a_safe_company_and_a_land_option_are_replayed():
    from cardc.render.board_picture import replay_example

    ipo = shipped("ipo")
    founding = replay_example(ipo, "founding.yaml", 1)
    assert founding.before.cells == {"B2": ("#", "tile")}
    assert founding.after.cells == {"B2": ("YAKS", "tile"), "C2": ("YAKS", "tile")}
    assert founding.steps == ("P1 → C2", "P1 → Yakshave Labs")
    growing = replay_example(ipo, "placement.yaml", 2)
    assert {c for c, (label, _) in growing.after.cells.items() if label == "STAK"} == {"B2", "C2", "D2", "E2"}
    merging = replay_example(ipo, "merger_survivor.yaml", 1)
    assert {label for label, _ in merging.before.cells.values()} == {"STAK", "YAKS"}
    assert {label for label, _ in merging.after.cells.values()} == {"STAK"}
    safe = replay_example(ipo, "safe_companies.yaml", 2)
    assert len([c for c, (label, _) in safe.after.cells.items() if label == "STAK"]) == 17
    option = replay_example(ipo, "land_options.yaml", 1)  # a marker placed by the card's `cell` counter
    assert (option.before.markers, option.after.markers) == ({}, {"D4": "option"})


def test_the_ipo_rulebook_draws_its_examples():
    import io

    from pypdf import PdfReader

    from cardc.render.rulebook import render_pdf

    reader = PdfReader(io.BytesIO(render_pdf(shipped("ipo"), gallery=False)))
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert text.count("Steps: ") == 5
    assert "Steps: P1 → C2 · P1 → Yakshave Labs" in text
    assert "Founding picks one of the 2 face-up companies" in text


def write_project(tmp_path: Path, scenario: str) -> None:
    (tmp_path / "cardc.toml").write_text('[project]\nscenarios = "sc"\n')
    (tmp_path / "sc" / "ipo").mkdir(parents=True)
    (tmp_path / "sc" / "ipo" / "ex.yaml").write_text(scenario)


def test_an_example_that_no_longer_replays_is_an_error_naming_it(tmp_path, monkeypatch):
    from cardc.render import RenderError
    from cardc.render.board_picture import replay_example

    original = (REPO / "tests" / "scenarios" / "ipo" / "founding.yaml").read_text()
    write_project(tmp_path, original.replace("yakshave.vested: 1", "yakshave.vested: 5", 1))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RenderError, match=r"^example ex.yaml 1 no longer replays: .*yakshave.vested"):
        replay_example(shipped("ipo"), "ex.yaml", 1)
    with pytest.raises(RenderError, match=r"^example ex.yaml 9: the file has 7 scenarios$"):
        replay_example(shipped("ipo"), "ex.yaml", 9)
    with pytest.raises(RenderError, match=r"^example \.\./ipo/../../x.yaml: no scenario file"):
        replay_example(shipped("ipo"), "../ipo/../../x.yaml", 1)


def test_a_game_without_a_board_shows_the_zones_an_example_changed():
    from cardc.render.board_picture import replay_example

    poach = replay_example(shipped("unicorn"), "poach_and_reactions.yaml", 1)
    changes = {z.label: (z.before and (z.before.card_id, z.before.count), z.after and (z.after.card_id, z.after.count))
               for z in poach.zones}
    assert changes["P1 bank"] == (None, ("cto", 1))  # the poached CTO, with its value
    assert changes["P2 bank"] == (("series_a", 2), ("series_a", 1))
    assert changes["Discard"] == (None, ("poach", 1))
    assert list(changes)[0] == "Discard"  # shared zones first


@pytest.mark.parametrize("game,steps", [("unicorn", "Steps: P1 → Use Poach · P1 → P2 · P1 → CTO"),
                                        ("startup", "Steps: P1 → Hire The Closer for $4")])
def test_unicorn_and_startup_rulebooks_draw_a_worked_example(game, steps):
    import io

    from pypdf import PdfReader

    from cardc.render.rulebook import render_pdf

    reader = PdfReader(io.BytesIO(render_pdf(shipped(game), gallery=False)))
    assert steps in "\n".join(page.extract_text() for page in reader.pages)
