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
    missing = [c["name"] for c in bundle["cards"] if c["name"] not in text]
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


def test_a_missing_template_is_a_clear_error(ipo):
    with pytest.raises(RulebookError, match=r"ipo/rulebook.md.j2: error: no rulebook template"):
        render_markdown(with_template(ipo, None))


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
