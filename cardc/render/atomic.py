"""Write a file so readers see the old version or the new one, never half.

Renders take seconds and can fail half way (a card whose text does not fit);
a printer queue or a diff tool must never pick up a truncated PDF. So every
output goes to a temporary file in the same folder (same file system, so the
final rename is atomic), is flushed to disk, and only then replaces the
target with os.replace. On any error the temporary file is removed and the
old target is left untouched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable, Union

Content = Union[bytes, str, Callable[[Path], None]]


def write_atomic(path: str | os.PathLike, content: Content) -> Path:
    """Write `content` to `path` atomically and return the path.

    `content` is bytes, text (written as UTF-8), or a callback that receives
    the temporary file's path and writes it (for writers that want a file
    name, such as Pillow's `Image.save`). Parent folders are created.
    """
    target = Path(path)
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
