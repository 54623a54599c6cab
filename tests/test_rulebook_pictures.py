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
