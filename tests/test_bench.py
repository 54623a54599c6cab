"""`cardc bench` works where no anchors lie beside it (an installed cardc):
the reference engine is looked for only when `--anchor` asks for it."""
import cardc.bench as bench_module
from conftest import MINI


def test_bench_needs_no_anchor_script_unless_asked(monkeypatch, capsys):
    def nowhere():
        raise SystemExit("cardc bench: no ../shared/bench/anchors/anchors.py found")
    monkeypatch.setattr(bench_module, "default_anchor_script", nowhere)
    assert bench_module.bench([str(MINI)], games_per=2, players=2, seconds=0,
                              agent="greedy") == 0
    out = capsys.readouterr().out
    assert "greedy cost x random" in out and "mini" in out
