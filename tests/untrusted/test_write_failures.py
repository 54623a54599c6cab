"""Write failures and unreachable clusters: one clear line each, no
temporary file left behind, and simulate's report written even when its
rule holes cannot be."""
from __future__ import annotations

import errno
import json
import os

import pytest

from cardc.cli import main
from tests.conftest import MINI


def test_a_folder_that_cannot_be_made(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["play", str(MINI), "--players", "2", "--quiet", "--log", str(blocker / "game.json")])
    err = capsys.readouterr().err
    assert code == 3                                   # documented in cardc --help: a file or folder
    assert err.startswith(f"cardc: cannot write or read {blocker}") and err.count("\n") == 1


def test_a_full_disk_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    import cardc.render.atomic as atomic

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(atomic.os, "fsync", full)
    target = tmp_path / "out" / "game.json"
    code = main(["play", str(MINI), "--players", "2", "--quiet", "--log", str(target)])
    err = capsys.readouterr().err
    assert code == 3 and "No space left on device" in err and err.count("\n") == 1
    assert list((tmp_path / "out").iterdir()) == []


def test_simulate_writes_its_report_when_holes_cannot_be_saved(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    report = tmp_path / "r.json"
    # a turn cap of one decision makes every game a rule hole to save
    code = main(["simulate", str(MINI), "--games", "4", "--jobs", "1", "--quiet", "--max-decisions", "1",
                 "--holes", str(blocker / "holes"), "--json", str(report)])
    err = capsys.readouterr().err
    assert code == 0
    data = json.loads(report.read_text())
    assert data["holes"] == [] and data["holes_not_saved"] == 4
    assert f"cardc: warning: cannot save rule holes in {blocker / 'holes'}" in err


@pytest.mark.slow
def test_an_unreachable_cluster_is_one_line(capsys):
    pytest.importorskip("distributed")
    code = main(["simulate", str(MINI), "--games", "2", "--quiet", "--cluster", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("cardc: --cluster tcp://127.0.0.1:9: no Dask scheduler answers there")
    assert err.count("\n") == 1


def _fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _socket(tmp_path):
    import socket
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    return path


@pytest.mark.parametrize("make, what", [
    (lambda tmp: "/dev/full", "a character device"),
    (lambda tmp: "/dev/null", "a character device"),
    (_fifo, "a named pipe (FIFO)"),
    (_socket, "a socket"),
    (lambda tmp: tmp, "a folder"),
])
@pytest.mark.parametrize("option", ["--log", "--json"])
def test_only_regular_files_are_written(tmp_path, capsys, make, what, option):
    """An output path naming a device, a FIFO, a socket or a folder is refused
    in one line (exit 3) and left as it was: replacing /dev/full with a file
    would hide a full disk, and replacing a FIFO breaks what reads it."""
    import stat
    target = make(tmp_path)
    before = os.stat(target).st_mode
    command = (["play", str(MINI), "--players", "2", "--quiet", "--log", str(target)] if option == "--log" else
               ["simulate", str(MINI), "--games", "2", "--jobs", "1", "--quiet", "--json", str(target)])
    code = main(command)
    err = capsys.readouterr().err
    assert code == 3
    assert err == (f"cardc: cannot write or read {target}: it is {what}, and cardc writes only regular files; "
                   "give the path of a regular file (or of one not there yet) instead\n")
    assert os.stat(target).st_mode == before and not stat.S_ISREG(before)


def test_a_link_to_a_regular_file_is_replaced_not_written_through(tmp_path):
    from cardc.render.atomic import write_atomic
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert real.read_text() == "old" and not link.is_symlink() and link.read_text() == "new"


def test_a_link_to_a_device_is_refused(tmp_path):
    from cardc.render.atomic import NotAFile, write_atomic
    link = tmp_path / "out.json"
    link.symlink_to("/dev/full")
    with pytest.raises(NotAFile):
        write_atomic(link, "x")
    assert link.is_symlink()
