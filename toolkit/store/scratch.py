"""Scratch stores: the temporary store files of commands given input files without
``--db``, and their clean-up after a process that could not clean up (SIGKILL, power loss).

Each scratch folder is named after the process that owns it
(``warmup-scratch-<pid>-<random>`` in the system's temporary folder); a command that makes
a new one first removes those whose process is gone. A killed command's scratch store is
as large as its input (hundreds of megabytes to gigabytes): without this, each kill left
one behind until a reboot emptied /tmp.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SCRATCH_PREFIX", "is_scratch", "pid_alive", "remove_stale", "scratch_folder"]

#: the start of every scratch folder's name, before the owner's pid
SCRATCH_PREFIX = "warmup-scratch-"
_OWNED = re.compile(re.escape(SCRATCH_PREFIX) + r"(\d+)-")


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (signal 0 checks without sending anything; a
    process of another user exists too: ``PermissionError``)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(folder: Path | None = None) -> list[Path]:
    """Remove the scratch folders in ``folder`` (default: the system's temporary folder)
    whose owning process is gone and that belong to this user; return them. A folder of
    a live process, of another user, or one that vanishes meanwhile is left alone."""
    root = Path(folder if folder is not None else tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        owner = _OWNED.match(entry.name)
        if owner is None or pid_alive(int(owner.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.is_symlink() and entry.stat().st_uid == os.geteuid():
                shutil.rmtree(entry)
                removed.append(entry)
    return removed


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    """A new scratch folder owned by this process, removed when the block ends; stale
    ones of dead processes are removed first (:func:`remove_stale`)."""
    remove_stale()
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") as folder:
        yield Path(folder)


def is_scratch(path: Path) -> bool:
    """Whether the store file ``path`` is a scratch store (nothing in it is kept)."""
    return _OWNED.match(path.parent.name) is not None
