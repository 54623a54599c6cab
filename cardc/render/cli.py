"""Command-line arguments of `cardc print` and `cardc export`.

The main CLI owns the sub-commands and loads the bundle named by `args.game`;
these functions add the renderer's arguments (the game id included) to its
sub-parsers and run them:

    add_print_arguments(subparsers.add_parser("print"))
    ...
    return run_print(args, load_bundle(args.game))
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cardc.project import generated_dir

from .atomic import write_atomic
from .errors import OptionError, RenderError
from .pipeline import BACKS, FITS, MAX_OFFSET, PrintOptions, render_game
from .printshop import SHOPS, export_for_shop
from .sheets import PAPERS
from .tts import export_tts

INCH = 25.4


def parse_bleed(text: str) -> float:
    """Millimetres from "3", "3mm", "0.125in" or "1/8in" ("1/8" alone means inches)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)(?:/(\d+))?\s*(mm|in)?\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"bleed {text!r}: give millimetres (3) or inches (1/8in)")
    value = float(match.group(1)) / (float(match.group(2)) if match.group(2) else 1)
    inches = match.group(3) == "in" or (match.group(2) and match.group(3) is None)
    return value * INCH if inches else value


def parse_offset(text: str) -> tuple[float, float]:
    """"X,Y" in millimetres, either may be negative."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"offset {text!r}: give X,Y in millimetres, e.g. 0.5,-1") from None
    if not all(math.isfinite(v) and abs(v) <= MAX_OFFSET for v in (x, y)):
        raise argparse.ArgumentTypeError(f"offset {text!r}: each of X and Y must be between -{MAX_OFFSET:g} and "
                                         f"{MAX_OFFSET:g} mm (the calibration page in guide.pdf measures it)")
    return x, y


def parse_ids(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _art_root(args: argparse.Namespace) -> Path | None:
    """The folder of the game `args.game` names, where its images are; None
    for a bundle file (art_folder then looks in the working directory's project)."""
    from cardc.project import UsageError, game_folders

    if str(args.game).endswith(".json"):
        return None
    try:
        return game_folders([args.game])[0]
    except UsageError:
        return None


def _out_dir(args: argparse.Namespace, bundle: Mapping[str, Any]) -> Path:
    return Path(args.out) if getattr(args, "out", None) else generated_dir(args.game) / bundle["game"]


def add_print_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game id (its bundle generated/<game>.json is printed)")
    parser.add_argument("--paper", choices=list(PAPERS), default="a4",
                        help="a4, letter, or common (the 210 x 279.4 mm both share)")
    parser.add_argument("--bleed", type=parse_bleed, default=0.0, metavar="MM",
                        help="background past the cut line: 0 (default), 3, or 1/8in")
    parser.add_argument("--backs", choices=BACKS, default="long-edge",
                        help="duplex flip edge, backs in a separate PDF, or no backs")
    parser.add_argument("--offset", type=parse_offset, default=(0.0, 0.0), metavar="X,Y",
                        help="shift backs by X,Y mm (measure with the calibration page in guide.pdf)")
    parser.add_argument("--cards", type=parse_ids, default=(), metavar="ID,...",
                        help="print only these cards (an errata sheet, errata.pdf)")
    parser.add_argument("--proof", action="store_true",
                        help="a contact sheet of every card (proof.pdf), or of the --cards named; "
                             "no backs, bleed or offset")
    parser.add_argument("--low-ink", action="store_true",
                        help="white cards with coloured titles and a thin rule, and plain white backs, to save toner")
    parser.add_argument("--fit", choices=FITS, default=None,
                        help="when the bleed costs cards a sheet: keep the bleed with fewer cards a sheet (bleed) "
                             "or keep the cards a sheet with a smaller bleed (cards); without it, such a bleed "
                             "is an error that says what each gives")
    parser.add_argument("--stamp", metavar="TEXT",
                        help="the build printed in every footer after the version, e.g. a date "
                             "(default: # and the first 6 digits of the content hash)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default generated/<game>/)")


def _usage(error: OptionError):
    """A bad option is a usage error (exit 2), said as every command says one."""
    from cardc.project import UsageError
    return UsageError(str(error))


# What --proof leaves out: it prints one face per card, without backs,
# bleed or imposition, so these options would silently do nothing.
_NOT_IN_A_PROOF = (("backs", "--backs", "long-edge"), ("bleed", "--bleed", 0.0),
                   ("offset", "--offset", (0.0, 0.0)), ("fit", "--fit", "cards"))


def proof_notes(args: argparse.Namespace) -> list[str]:
    """A note for each option given with --proof that a proof does not use."""
    if not args.proof:
        return []
    return [f"{flag} does nothing with --proof (a proof is one face per card, without backs or "
            f"bleed): print without --proof for {flag}"
            for key, flag, default in _NOT_IN_A_PROOF if getattr(args, key, default) != default]


def run_print(args: argparse.Namespace, bundle: Mapping[str, Any]) -> int:
    for note in proof_notes(args):
        print(f"note: {note}", file=sys.stderr)
    options = PrintOptions(paper=args.paper, bleed=args.bleed, backs=args.backs, offset=args.offset,
                           cards=args.cards, proof=args.proof, fit=getattr(args, "fit", None),
                           low_ink=getattr(args, "low_ink", False), stamp=getattr(args, "stamp", None))
    try:
        rendered = render_game(bundle, options, _art_root(args))
        out = _out_dir(args, bundle)
        paths = [write_atomic(out / name, data) for name, data in rendered.files.items()]
    except OptionError as error:
        raise _usage(error) from None
    except RenderError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for note in rendered.notes:
        print(f"note: {note}", file=sys.stderr)
    for path in paths:
        print(path)
    return 0


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game id (its bundle generated/<game>.json is exported)")
    parser.add_argument("--tts", action="store_true",  # the only export; kept so old commands still work
                        help="not needed (kept so old commands still work): export always writes the Tabletop "
                             "Simulator saved object, deck sheets and a PNG per card")
    parser.add_argument("--card-px", type=int, default=None, metavar="PX",
                        help="card width in pixels, 100-2048 (default 409; larger cards give sheets with "
                             "fewer columns)")
    parser.add_argument("--url-base", metavar="URL",
                        help="where the sheets will be uploaded (default: file:// paths on this machine)")
    parser.add_argument("--for", dest="shop", choices=list(SHOPS), metavar="SHOP",
                        help="card files for a print shop instead: " + ", ".join(SHOPS)
                             + " (<out>/<shop>/, with README.txt on how to upload)")
    parser.add_argument("--cmyk", action="store_true", help="with --for pdf: write the colours as CMYK")
    parser.add_argument("--out", metavar="DIR", help="output folder (default generated/<game>/)")


def run_export(args: argparse.Namespace, bundle: Mapping[str, Any]) -> int:
    if getattr(args, "tts", False):
        print("note: --tts is not needed: export always writes the Tabletop Simulator files",
              file=sys.stderr)
    if getattr(args, "shop", None) or getattr(args, "cmyk", False):
        try:
            if not getattr(args, "shop", None):
                raise RenderError("--cmyk goes with --for pdf")
            notes: list[str] = []
            paths = export_for_shop(bundle, args.shop, _out_dir(args, bundle), getattr(args, "cmyk", False),
                                    _art_root(args), notes)
        except OptionError as error:
            raise _usage(error) from None
        except RenderError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        root = _out_dir(args, bundle) / args.shop
        print(f"{len(paths)} files in {root}, checked: pixel size, dpi, bleed and trim boxes "
              f"(how to upload: {root / 'README.txt'})")
        return 0
    try:
        paths = export_tts(bundle, _out_dir(args, bundle), getattr(args, "card_px", None),
                           getattr(args, "url_base", None), _art_root(args))
    except OptionError as error:
        raise _usage(error) from None
    except RenderError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{len(paths)} files in {_out_dir(args, bundle)}")
    return 0


def add_rulebook_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="game id (its rulebook.md.j2 is rendered over its bundle)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default generated/<game>/)")
    parser.add_argument("--format", choices=("pdf", "md", "both"), default="both",
                        help="rulebook.pdf, rulebook.md, or both (default)")
    parser.add_argument("--paper", choices=list(PAPERS), default="a4", help="a4 (default), letter, or common")


def run_rulebook(args: argparse.Namespace, bundle: Mapping[str, Any]) -> int:
    from .rulebook import RulebookError, write_rulebook  # platypus and markdown-it load only here

    try:
        paths = write_rulebook(bundle, _out_dir(args, bundle), args.format, getattr(args, "paper", "a4"))
    except OptionError as error:
        raise _usage(error) from None
    except RenderError as error:
        # A RulebookError reads "file:line: error: ..." already.
        print(error if isinstance(error, RulebookError) else f"error: {error}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0
