"""Who owns a running run, and whether that owner is still alive.

A run row records host name, pid and a process *start stamp*: the kernel boot id plus the process start time in
clock ticks from ``/proc/<pid>/stat``. Comparing the stamp, not just the pid, means a pid recycled by a later
process (or by the same pid after a reboot) is not mistaken for the run's owner. Without ``/proc`` (macOS) the
stamp is ``None`` and liveness falls back to ``os.kill(pid, 0)``.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_PROC = Path("/proc")


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    start: str | None


def hostname() -> str:
    return socket.gethostname()


@cache
def _boot_id() -> str:
    try:
        return (_PROC / "sys" / "kernel" / "random" / "boot_id").read_text().strip()
    except OSError:
        return "unknown-boot"


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/<pid>/stat``; the command name (field 2) may hold spaces and parentheses."""
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except (OSError, ValueError):
        return None
    _, _, rest = raw.rpartition(")")
    fields = rest.split()
    return fields if len(fields) > 19 else None


def start_stamp(pid: int) -> str | None:
    """``<boot id>:<start ticks>`` for a live process, ``None`` where unknowable or dead."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] in ("Z", "X"):  # a zombie has exited: its run cannot progress any more
        return None
    return f"{_boot_id()}:{fields[19]}"


def current_owner() -> Owner:
    pid = os.getpid()
    return Owner(hostname(), pid, start_stamp(pid))


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, belongs to someone else
        return True
    except OSError:
        return False
    return True


def is_alive(pid: int | None, start: str | None) -> bool:
    """Whether the process that recorded ``(pid, start)`` on this host is still running."""
    if pid is None or pid <= 0:
        return False
    if start is None or not _PROC.is_dir():
        # No stamp was recorded (no /proc where the run started): the pid is all there is to go on.
        return _pid_exists(pid) and (not _PROC.is_dir() or start_stamp(pid) is not None)
    return start_stamp(pid) == start
