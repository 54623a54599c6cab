"""`cardc rulebook`: the jinja2 template over the bundle, its Markdown, its PDF.

The games' real content is built once per module (content/<game>/, with its
rulebook.md.j2); the PDF is read back with pypdf. Edge cases use the ipo
bundle with a small replacement template and no card gallery, so they stay fast.
"""

from __future__ import annotations

import argparse
import io
import re

import pytest
from pypdf import PdfReader

from conftest import CONTENT
from cardc.project import build_folder
from cardc.render import RenderError
from cardc.render.cli import add_rulebook_arguments, run_rulebook
from cardc.render.rulebook import (RulebookError, render_markdown, render_pdf, render_rulebook, template_name,
                                   write_rulebook)

GAMES = ("unicorn", "startup", "ipo")
PT = 72 / 25.4


def build(folder):
    built = build_folder(folder)
    assert built.bundle is not None, built.diags.render()
    return built.bundle


@pytest.fixture(scope="module")
def bundles():
    return {game: build(CONTENT / game) for game in GAMES}


@pytest.fixture(scope="module")
def ipo(bundles):
    return bundles["ipo"]


@pytest.fixture(scope="module")
def ipo_book(ipo):
    return render_rulebook(ipo, "both")


def with_template(bundle, text):
    return {**bundle, "rulebook": text}


def pages_text(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def lines(page) -> list[str]:
    """The page's text runs joined line by line, top to bottom (by their baseline)."""
    rows: dict[int, list[tuple[float, str]]] = {}

    def visit(text, cm, tm, *_):
        if text.strip():
            x, y = cm[0] * tm[4] + cm[4], cm[3] * tm[5] + cm[5]
            rows.setdefault(round(y), []).append((x, text.strip()))

    page.extract_text(visitor_text=visit)
    return [" ".join(t for _, t in sorted(rows[y])) for y in sorted(rows, reverse=True)]


def squash(text: str) -> str:
    return "".join(text.split())


# ---------------------------------------------------------------- the PDF


def test_pdf_has_title_page_contents_and_the_rules(ipo, ipo_book):
    reader = PdfReader(io.BytesIO(ipo_book.pdf))
    texts = [page.extract_text() for page in reader.pages]
    assert len(reader.pages) > 3
    assert "IPO" in texts[0] and f"{ipo['players']['min']}–{ipo['players']['max']} players" in texts[0]
    assert "Contents" in texts[1]
    for heading in ("Components", "Setup", "A turn, in order", "Mergers and payouts", "Ending the game",
                    "Glossary", "Card gallery"):
        assert heading in texts[1], f"{heading} missing from the table of contents"
    body = squash(" ".join(texts[2:]))
    for generated in ("$1,100", "HostilePosition", "StacktraceSystems(STAK)", "L9", "$6,000"):
        assert generated in body, generated
    assert reader.metadata.title == "IPO: rulebook"
    assert [entry.title for entry in reader.outline if not isinstance(entry, list)][:2] == ["The goal", "Components"]


def test_toc_page_numbers_point_at_their_headings_and_every_body_page_is_numbered(ipo_book):
    reader = PdfReader(io.BytesIO(ipo_book.pdf))
    texts = [page.extract_text() for page in reader.pages]
    toc = {}
    for line in lines(reader.pages[1]):
        match = re.fullmatch(r"(.+?)[ .]*(\d+)", line)
        if match:
            toc[match.group(1).strip()] = match.group(2)
    for heading in ("Setup", "Share prices", "Glossary", "Card gallery"):
        page = int(toc[heading])
        assert heading in texts[page - 1], f"TOC says {heading} is on page {page}"
    for number, page in enumerate(reader.pages, 1):
        footer = []
        page.extract_text(visitor_text=lambda text, cm, tm, *_: footer.append(text.strip())
                          if text.strip() and cm[5] + tm[5] < 20 * PT else None)
        assert footer == ([] if number == 1 else [str(number)]), f"page {number}"


def test_fonts_are_embedded_and_only_ours(ipo_book):
    reader = PdfReader(io.BytesIO(ipo_book.pdf))
    fonts = set()
    for page in reader.pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            font = font.get_object()
            fonts.add(font["/BaseFont"])
            descriptor = font.get("/FontDescriptor") or font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            assert "/FontFile2" in descriptor.get_object(), font["/BaseFont"]
    assert fonts and not any("Helvetica" in name for name in fonts)


def test_rendering_is_deterministic(ipo, ipo_book, tmp_path):
    again = render_rulebook(ipo, "both")
    assert again.pdf == ipo_book.pdf and again.markdown == ipo_book.markdown
    assert b"/CreationDate" not in ipo_book.pdf or b"D:20000101000000" in ipo_book.pdf


# ---------------------------------------------------------------- the Markdown


@pytest.mark.parametrize("game", GAMES)
def test_markdown_names_every_card_and_every_kind(bundles, game):
    bundle = bundles[game]
    text = render_markdown(bundle)
    from cardc.render.layout import load_layout

    layout = load_layout(bundle)
    # tiles are named by their board space only: no table of 108 cell names (issue 15)
    named = [c for c in bundle["cards"] if layout.deck_of(c["kind"]).style != "tile"]
    missing = [c["name"] for c in named if c["name"] not in text]
    assert not missing, f"{game}: cards missing from the rulebook: {missing}"
    assert all(kind["label"] in text for kind in bundle["kinds"].values())
    assert text.endswith("\n") and "\n\n\n" not in text and "{{" not in text and "{%" not in text


@pytest.mark.parametrize("game", GAMES)
def test_markdown_states_every_number_from_params_not_from_the_template(bundles, game):
    """Every number in the rendered rules comes from the bundle: a template line
    that prints a number it did not compute is a number that can drift."""
    source = bundles[game]["rulebook"]
    prose = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", "", source, flags=re.S)
    prose = re.sub(r"^(\s*)\d+\. ", r"\1", prose, flags=re.M)  # numbered-list markers are not rules
    literal = [m.group(0) for m in re.finditer(r"(?<![\w#-])\$?\d[\d,]*", prose)]
    assert not literal, f"{game}: numbers written into the template instead of templated: {literal[:10]}"


def test_a_changed_param_changes_the_rulebook(game_copy, ipo):
    before = render_markdown(ipo)
    folder = game_copy(CONTENT / "ipo", {"game.yaml": [("start_money: 6000", "start_money: 7500"),
                                                       ("hand_limit: 3  ", "hand_limit: 4  ")]})
    after = render_markdown(build(folder))
    assert "$6,000" in before and "$6,000" not in after and "$7,500" in after
    assert "Hand limit 3." in before and "Hand limit 4." in after
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert 2 <= len(changed) < 12, changed


# ---------------------------------------------------------------- template errors


def test_an_unknown_name_names_the_template_file_and_line(game_copy):
    folder = game_copy(CONTENT / "ipo", {"rulebook.md.j2": [("## The goal\n", "## The goal\n\n{{ params.hand_limt }}\n")]})
    bundle = build(folder)
    line = bundle["rulebook"].splitlines().index("{{ params.hand_limt }}") + 1
    with pytest.raises(RulebookError) as caught:
        render_markdown(bundle)
    error = caught.value
    assert error.file == str(folder / "rulebook.md.j2") or error.file.endswith("ipo/rulebook.md.j2")
    assert template_name(bundle) == error.file
    assert error.line == line
    assert f"rulebook.md.j2:{line}: error:" in str(error)
    assert "hand_limt" in str(error) and "did you mean `hand_limit`?" in str(error)


@pytest.mark.parametrize("template, line, message", [
    ("# T\n\nok\n{{ nope }}\n", 4, "'nope' is undefined"),
    ("# T\n{% for c in cards %}\n{{ c.name }\n{% endfor %}\n", 3, "unexpected '}'"),
    ("# T\n\n\n{% for c in cards_of_kind('buisness') %}{% endfor %}\n", 4, "did you mean `business`?"),
    ("# T\n{{ card('force_ipoo').name }}\n", 2, "no card `force_ipoo`"),
    ("# T\n{{ rule('share_prize', 3) }}\n", 2, "did you mean `share_price`?"),
    ("# T\n{{ rule('share_price') }}\n", 2, "takes 1 argument"),
    ("# T\n\n{{ cards.append(1) }}\n", 3, "unsafe"),
])
def test_template_errors_carry_the_line(ipo, template, line, message):
    with pytest.raises(RulebookError) as caught:
        render_markdown(with_template(ipo, template))
    assert caught.value.line == line
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"{template_name(ipo)}:{line}: error:")


def test_a_game_without_a_template_gets_the_default_rulebook(ipo):
    """No rulebook.md.j2: the rulebook is made of the content (see test_language.py)."""
    text = render_markdown(with_template(ipo, None))
    assert text.startswith("# IPO\n") and "## Setup" in text and "## The cards" in text


def test_helpers_and_filters(ipo):
    text = render_markdown(with_template(ipo, "\n\n".join([
        "{{ 6000 | money }} {{ 1000 | millions }} {{ -75 | money('M') }} {{ 12345 | number }}",
        "{{ 2 | signed }} {{ -1 | signed }} {{ 3 | words }} {{ 25 | words }} {{ 4 | ordinal }} {{ 22 | ordinal }}",
        "{{ 1 | plural('tile') }} {{ 3 | plural('tile') }} {{ 2 | plural('company', 'companies') }}",
        "{{ ['a', 'b', 'c'] | join_and }} {{ 'x | y' | cell }}",
        "{{ total('business') }} {{ total() }} {{ copies('force_ipo') }} {{ quantity('land_option') }}",
        "{{ kind_quantity('option') }} {{ total_in('business_deck') }} {{ kind_label('tile') }}",
        "{{ rule('share_price', 5) }} {{ rule('share_price', 30) }} {{ rule('split_up', 1500, 2) }}",
        "{{ glossary({'Zebra': 'z'})[-1] | join(': ') }} {{ glossary() | length }}",
    ])))
    lines = text.strip().split("\n\n")
    assert lines[0] == "$6,000 $1,000M -$75M 12,345"
    assert lines[1] == "+2 -1 three 25 4th 22nd"
    assert lines[2] == "1 tile 3 tiles 2 companies"
    assert lines[3] == r"a, b and c x \| y"
    assert lines[4] == f"50 {len(ipo['instances'])} 5 3 per player"
    assert lines[5] == "3 per player 50 Property Tile"
    assert lines[6] == "500 1100 800"
    assert lines[7] == f"Zebra: z {len(ipo['kinds'])}"


def test_unsupported_markdown_and_missing_glyphs_name_the_line(ipo):
    with pytest.raises(RulebookError, match=r"^rulebook.md:3: error: raw HTML .* rendered from .*ipo/rulebook.md.j2"):
        render_pdf(with_template(ipo, "# T\n\n<div>boxed</div>\n"), gallery=False)
    with pytest.raises(RenderError, match=r"^rulebook.md:3 \(rendered from .*rulebook.md.j2\): .*U\+2603"):
        render_pdf(with_template(ipo, "# T\n\nA snowman ☃ here.\n"), gallery=False)


def test_headings_with_markup_characters_reach_the_contents_and_outline(ipo):
    data = render_pdf(with_template(ipo, "# T\n\n## Cease & Desist < 3 > 2\n\ntext\n"), gallery=False)
    reader = PdfReader(io.BytesIO(data))
    assert "Cease & Desist < 3 > 2" in reader.pages[1].extract_text()
    assert reader.outline[0].title == "Cease & Desist < 3 > 2"


def test_markdown_subset_reaches_the_pdf(ipo):
    template = "\n".join([
        "# Mini", "", "A *tagline* for {{ name }}.", "", "## Chapter one", "",
        "Some **bold**, *italic* and `code`.", "", "- a bullet", "  1. nested number", "- another", "",
        "3. starts at three", "4. then four", "", "| left | right |", "|:--|--:|",
        "{% for c in cards_of_kind('business')[:3] %}", "| {{ c.name }} | {{ copies(c) }} |", "{% endfor %}", "",
        "> **Clarification.** quoted", "", "---", "", "<!-- pagebreak -->", "", "### Section two", "",
        "#### Run-in", "", "text after", ""])
    data = render_pdf(with_template(ipo, template), gallery=False)
    texts = pages_text(data)
    assert "Mini" in texts[0] and "tagline" in texts[0]
    assert "Chapter one" in texts[1] and "Section two" in texts[1]
    body = " ".join(texts[2:])
    for expected in ("bold", "nested number", "3.", "4.", "Force IPO", "Clarification.", "Run-in", "text after"):
        assert expected in body, expected
    assert "Section two" in texts[3] and "Chapter one" in texts[2]  # the page break


# ---------------------------------------------------------------- files and the command line


def test_cli_writes_markdown_and_pdf_atomically(ipo, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_rulebook_arguments(parser)
    args = parser.parse_args(["ipo", "--out", str(tmp_path), "--format", "md"])
    assert run_rulebook(args, ipo) == 0
    assert (tmp_path / "rulebook.md").read_text() == render_markdown(ipo)
    assert not (tmp_path / "rulebook.pdf").exists()
    assert str(tmp_path / "rulebook.md") in capsys.readouterr().out

    broken = with_template(ipo, "# T\n{{ params.nope }}\n")
    assert run_rulebook(args, broken) == 1
    err = capsys.readouterr().err
    assert re.search(r"rulebook\.md\.j2:2: error: .*nope", err), err
    assert (tmp_path / "rulebook.md").read_text() == render_markdown(ipo)  # the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rulebook.md"]


def test_the_main_cli_has_the_rulebook_command(tmp_path, capsys):
    from cardc.cli import main
    assert main(["rulebook", "ipo", "--out", str(tmp_path), "--format", "md"]) == 0
    assert (tmp_path / "rulebook.md").read_text().startswith("# IPO\n")


def test_write_rulebook_both(ipo, tmp_path):
    small = with_template(ipo, "# T\n\n## One\n\nx\n")
    paths = write_rulebook(small, tmp_path, "both")
    assert [p.name for p in paths] == ["rulebook.md", "rulebook.pdf"]
    assert (tmp_path / "rulebook.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(RenderError, match="--format"):
        write_rulebook(small, tmp_path, "html")


# ---------------------------------------------------------------- components, setup picture, example turn


def component_rows(markdown: str) -> list[str]:
    """The first column of the Components table."""
    section = markdown.split("## Components", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| component")]
    return [row.split("|")[1].strip() for row in rows]


@pytest.mark.parametrize("game", GAMES)
def test_every_listed_component_is_printed_or_in_you_will_also_need(bundles, game, tmp_path):
    from cardc.render import PrintOptions, render_game
    from pypdf import PdfReader

    bundle = bundles[game]
    markdown = render_markdown(bundle)
    rows = component_rows(markdown)
    assert rows
    rendered = render_game(bundle, PrintOptions())
    printed = {c.name: c for c in rendered.components}
    also = (bundle["layout"].get("also_need") or [])
    for row in rows:
        assert row in printed or any(row.lower() in thing.lower() for thing in also), (game, row)
    # and what the list says is printed is really in the PDFs: decks have cards placed,
    # trackers, tokens and the board their title or pieces in components.pdf
    placed = {p.card_id for pl in rendered.placements.values() for p in pl}
    comp_text = ""
    if "components.pdf" in rendered.files:
        comp_text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(rendered.files["components.pdf"])).pages)
    from cardc.render.layout import load_layout
    layout = load_layout(bundle)
    deck_ids = {d.title: d.id for d in layout.decks}
    for name, component in printed.items():
        if name in deck_ids:
            ids = {c["id"] for c in bundle["cards"] if layout.deck_of(c["kind"]).id == deck_ids[name]}
            assert ids & placed, name
        elif name == "Player aids":
            assert any(i.startswith("aid_") for i in placed)
        elif name == "Board":
            assert "board" in comp_text
        elif any(t.title == name for t in layout.trackers):
            assert name in comp_text.replace("\n", " ") or name.split(" (")[0] in comp_text, name
        else:  # a token sheet
            sheet = next(t for t in layout.tokens if t.title == name)
            assert any(i.startswith(sheet.id) for i in placed), name
    if also:
        assert "### You will also need" in markdown and all(thing in markdown for thing in also)


def test_startup_prints_its_interest_tokens_and_counters(bundles):
    names = component_rows(render_markdown(bundles["startup"]))
    assert "Interest tokens" in names and any(n.startswith("Money") for n in names)
    assert any(n.startswith("Hype") for n in names) and any(n.startswith("Widgets") for n in names)


def test_ipo_prints_money_markers_and_trackers_sized_to_the_market(bundles):
    from cardc.render.components import tracker_rows
    from cardc.render.layout import load_layout

    bundle = bundles["ipo"]
    names = component_rows(render_markdown(bundle))
    assert {"Money", "Company markers", "Board"} <= set(names)
    layout = load_layout(bundle)
    for tracker in layout.trackers:
        assert len(tracker_rows(tracker, bundle)) == bundle["params"]["market_size"]


@pytest.mark.parametrize("game", GAMES)
def test_rulebook_has_cover_facts_setup_picture_example_turn_and_card_appendix(bundles, game):
    bundle = bundles[game]
    markdown = render_markdown(bundle)
    assert "<!-- setup picture -->" in markdown
    example = markdown.split("## An example turn", 1)[1].split("\n## ", 1)[0]
    assert "**Turn 3" in example and example.count("\n- ") >= 2
    head, appendix = markdown.split("## Appendix: card lists", 1)
    assert appendix.count("\n| ") > 5  # the card tables live here now
    chapters = [line for line in head.splitlines() if line.startswith("## ")]
    assert chapters.index("## Components") + 1 == chapters.index("## Setup")  # no card tables before setup
    pdf_bytes = render_pdf(bundle, markdown)
    cover = pages_text(pdf_bytes)[0]
    players = bundle["players"]
    assert f"{players['min']}–{players['max']} players" in cover and "minutes" in cover and "ages" in cover


def test_rulebook_text_is_never_below_6_pt_outside_the_gallery_pictures(ipo):
    import math

    from pypdf import PdfReader

    # The gallery and the setup picture draw the printed cards scaled down:
    # pictures, left out here (the gallery by its switch, the picture's
    # cards by the scaling they are drawn under).
    reader = PdfReader(io.BytesIO(render_pdf(ipo, gallery=False)))
    sizes = []

    def visit(t, cm, tm, font, size):
        if t.strip() and math.hypot(cm[0], cm[1]) > 0.99:
            sizes.append((size * math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]), t))

    for page in reader.pages:
        page.extract_text(visitor_text=visit)
    assert len(sizes) > 200 and min(sizes)[0] >= 6 - 1e-6, min(sizes)
