"""Write a file so readers see the old version or the new one, never half.

Renders take seconds and can fail half way (a card whose text does not fit);
a printer queue or a diff tool must never pick up a truncated PDF. So every
output goes to a temporary file in the same folder (same file system, so the
final rename is atomic), is flushed to disk, and only then replaces the
target with os.replace. On any error the temporary file is removed and the
old target is left untouched.

Only regular files are written. A path that names a device, a FIFO, a
socket or a folder is refused before anything is made (`NotAFile`):
replacing `/dev/full` or a named pipe with a regular file would hide the
device's errors and break whatever reads the pipe. A symbolic link is
followed only to ask what it names; the link itself is what gets replaced.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

Content = bytes | str | Callable[[Path], None]


class NotAFile(OSError):
    """The output path names something other than a regular file."""
    advice = "give the path of a regular file (or of one not there yet) instead"


_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def check_target(path: str | os.PathLike) -> None:
    """Refuse an existing `path` that is not a regular file (NotAFile, an
    OSError whose one-line message names the path and what it is)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return                              # nothing there yet (or a dangling link): a new file
    except NotADirectoryError:
        return                              # mkdir below reports the file in the way
    if stat.S_ISREG(mode):
        return
    what = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise NotAFile(errno.EINVAL, f"it is {what}, and cardc writes only regular files", str(path))


def write_atomic(path: str | os.PathLike, content: Content) -> Path:
    """Write `content` to `path` atomically and return the path.

    `content` is bytes, text (written as UTF-8), or a callback that receives
    the temporary file's path and writes it (for writers that want a file
    name, such as Pillow's `Image.save`). Parent folders are created.
    """
    target = Path(path)
    check_target(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(content, str):
                handle.write(content.encode("utf-8"))
            elif isinstance(content, (bytes, bytearray, memoryview)):
                handle.write(content)
        if callable(content):
            content(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
