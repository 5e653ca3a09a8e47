"""One cgroup per sandboxed run: the kernel bounds the memory, CPU and process count of all its processes together.

``RLIMIT_AS`` and ``RLIMIT_CPU`` bound each process on its own, so a run of 60 processes could hold 60 times its
memory and spin 60 CPUs. A cgroup counts the whole run: ``memory.max`` (v2) or ``memory.limit_in_bytes`` plus
``memory.memsw.limit_in_bytes`` (v1) is the run's ``memory_mb`` with swap off, ``cpu.max`` / ``cpu.cfs_quota_us``
caps it at ``CPU_CORES`` cores, and ``pids.max`` caps its tasks. The cgroup's own counters (peak memory, CPU time,
OOM kills, refused forks) are what the runner reads afterwards: the kernel's account, not the program's.

Both layouts are handled: cgroup v1 (one hierarchy per controller, as on this project's CI machine: a
``process_api`` memory cgroup under ``/sys/fs/cgroup/memory``) and cgroup v2 (one tree; the controllers must be
delegated to the app's cgroup or its parent). A run's directories are
``<hierarchy>/maestro-sandbox/run-<pid namespace>-<owner pid>-<owner start time>-<random>``, so a sweep at start
can tell its own leftovers (the owner is dead: no such pid in our pid namespace, or one started at another time)
from another live app's runs, and never touches anything else.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

PARENT = "maestro-sandbox"
CPU_CORES = 1.0  # per run: a run may use one core's worth of time however many processes it starts
_PERIOD_US = 100_000
_NAME = re.compile(r"^run-(\d+)-(\d+)-(\d+)-[0-9a-f]+$")
_LEGACY = re.compile(r"^maestro-sandbox-[0-9a-f]{12}$")  # the pids cgroups of earlier versions (no owner)
_CONTROLLERS = ("memory", "cpu", "cpuacct", "pids")


@dataclass(frozen=True)
class Layout:
    """Where this process may create run cgroups: controller -> parent directory (``maestro-sandbox``)."""

    version: int  # 1 or 2; 0 when no controller is usable
    parents: dict[str, Path] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # controller -> why it is not usable
    # v2 with the runs beside the app's own cgroup (under its parent): a process inside a cgroup namespace rooted
    # at the app's cgroup could not join them, so the run gets no cgroup namespace of its own.
    beside_own: bool = False

    def has(self, controller: str) -> bool:
        return controller in self.parents


@dataclass
class Usage:
    """The kernel's account of one run, read from its cgroup (None: that controller was not there)."""

    cpu_s: float | None = None
    peak_memory_bytes: int | None = None
    oom_kills: int = 0
    forks_refused: int = 0


def _mounts() -> tuple[dict[str, Path], Path | None]:
    """v1 hierarchies by controller, and the v2 mount, from this process's mount table."""
    v1: dict[str, Path] = {}
    v2: Path | None = None
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return v1, v2
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        if tail[0] == "cgroup2" and v2 is None:
            v2 = Path(fields[4])
        elif tail[0] == "cgroup":
            for option in tail[2].split(","):
                if option in _CONTROLLERS:
                    v1.setdefault(option, Path(fields[4]))
    return v1, v2


def _own_v2_cgroup(mount: Path) -> Path | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return mount / line[3:].lstrip("/")
    return None


def _ensure_dir(path: Path) -> None:
    with contextlib.suppress(FileExistsError):
        path.mkdir()


def _enabled(base: Path, wanted: list[str]) -> list[str]:
    try:
        on = set((base / "cgroup.subtree_control").read_text().split())
    except OSError:
        return []
    return [name for name in wanted if name in on]


def _enable(base: Path, wanted: list[str]) -> list[str]:
    """Turn on ``wanted`` controllers for ``base``'s children; returns those that are on afterwards."""
    try:
        on = set((base / "cgroup.subtree_control").read_text().split())
        available = set((base / "cgroup.controllers").read_text().split())
    except OSError:
        return []
    for name in wanted:
        if name not in on and name in available:
            with contextlib.suppress(OSError):  # EBUSY: base holds processes (v2's no-internal-processes rule)
                (base / "cgroup.subtree_control").write_text(f"+{name}")
    with contextlib.suppress(OSError):
        on = set((base / "cgroup.subtree_control").read_text().split())
    return [name for name in wanted if name in on]


@cache
def layout() -> Layout:
    """Probe once which controllers this process may use, preparing the ``maestro-sandbox`` parents."""
    if os.geteuid() != 0:
        return Layout(0, problems={c: "not root: cgroups are not delegated to this user" for c in _CONTROLLERS})
    v1, v2 = _mounts()
    parents: dict[str, Path] = {}
    problems: dict[str, str] = {}
    if v1:
        for controller in _CONTROLLERS:
            if controller not in v1:
                problems[controller] = "no v1 hierarchy mounted"
                continue
            parent = v1[controller] / PARENT
            try:
                _ensure_dir(parent)
                parents[controller] = parent
            except OSError as exc:
                problems[controller] = f"{v1[controller]} is not writable ({exc.strerror})"
        return Layout(1 if parents else 0, parents, problems)
    if v2 is None:
        return Layout(0, problems={c: "no cgroup filesystem mounted" for c in _CONTROLLERS})
    wanted = ["memory", "cpu", "pids"]
    own = _own_v2_cgroup(v2)
    # Our own cgroup may be given the controllers (possible when it holds no process, or is the root); its parent
    # is only used where they are already delegated there: a cgroup that is not ours is never changed.
    for base, change in ((own, True), (own.parent if own and own != v2 else None, False)):
        if base is None or not base.is_dir():
            continue
        on = _enable(base, wanted) if change else _enabled(base, wanted)
        if not on:
            continue
        parent = base / PARENT
        try:
            _ensure_dir(parent)
        except OSError:
            continue
        on = _enable(parent, on)
        found = {name: parent for name in on} | ({"cpuacct": parent} if "cpu" in on else {})
        missing = {c: f"not delegated to {base}" for c in _CONTROLLERS if c not in found}
        return Layout(2, found, missing, beside_own=not change)
    why = (f"not delegated to {own} or its parent (cgroup v2 enables a controller only for a cgroup without "
           "processes of its own: run the app in a leaf cgroup under a delegated one, e.g. systemd Delegate=yes)")
    return Layout(0, problems={c: why for c in _CONTROLLERS})


def _start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])  # field 22: start time in clock ticks since boot


@cache
def _pid_namespace() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


def owner_tag() -> str:
    """``<pid namespace>-<pid>-<start time>``: names this process, so that a later start can tell it is dead."""
    pid = os.getpid()
    return f"{_pid_namespace()}-{pid}-{_start_time(pid) or 0}"


def dead_owner(tag: str) -> bool:
    """Whether ``owner_tag``'s process is gone (only decided in our own pid namespace; elsewhere: no)."""
    namespace, pid, started = (int(part) for part in tag.split("-")[:3])
    return namespace == _pid_namespace() and _start_time(pid) != started


def _own_name() -> str:
    return f"run-{owner_tag()}-{secrets.token_hex(6)}"


def _stale(name: str, path: Path) -> bool:
    """A leftover of a dead owner in our pid namespace (or an ownerless one of an earlier version, empty, old)."""
    if _NAME.match(name):
        return dead_owner(name[len("run-"):])
    if _LEGACY.match(name):
        with contextlib.suppress(OSError):
            return not (path / "cgroup.procs").read_text().strip() and time.time() - path.stat().st_mtime > 60
    return False


def _legacy_parent(hierarchy: Path) -> Path:
    return hierarchy.parent if hierarchy.name == PARENT else hierarchy


def sweep() -> list[str]:
    """Kill and remove the run cgroups that killed apps left behind; returns the removed paths."""
    removed: list[str] = []
    places = {p for p in layout().parents.values()} | {_legacy_parent(p) for p in layout().parents.values()}
    for place in places:
        with contextlib.suppress(OSError):
            for entry in place.iterdir():
                if entry.is_dir() and _stale(entry.name, entry):
                    _kill_and_remove([entry])
                    if not entry.exists():
                        removed.append(str(entry))
    return removed


@cache
def _swept_once() -> int:
    return len(sweep())


def _write(path: Path, value: str) -> None:
    path.write_text(value)


def _read_int(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().split()[0])
    return None


def _read_key(path: Path, key: str) -> int:
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def _procs(directory: Path) -> list[int]:
    with contextlib.suppress(OSError, ValueError):
        return [int(p) for p in (directory / "cgroup.procs").read_text().split()]
    return []


def _kill_and_remove(directories: list[Path]) -> None:
    """SIGKILL every process in the directories until none is left, then remove them."""
    for directory in directories:
        with contextlib.suppress(OSError):
            (directory / "cgroup.kill").write_text("1")  # v2, Linux 5.14+: one atomic kill
    for _ in range(100):
        pids = {pid for directory in directories for pid in _procs(directory)}
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    for directory in directories:
        for _ in range(50):
            try:
                directory.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # EBUSY while the last killed task is still being reaped
                time.sleep(0.01)


class RunCgroup:
    """The cgroup(s) of one run; v1 has a directory per hierarchy, v2 one directory for every controller."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs

    @classmethod
    def create(cls, memory_mb: int, max_processes: int) -> RunCgroup | None:
        """A fresh cgroup with every available limit set, or None where no pids controller is usable."""
        found = layout()
        if not found.has("pids"):
            return None
        _swept_once()
        name = _own_name()
        dirs: dict[str, Path] = {}
        made: list[Path] = []
        try:
            for controller, parent in found.parents.items():
                path = parent / name
                if path not in made:
                    path.mkdir()
                    made.append(path)
                dirs[controller] = path
            group = cls(found.version, dirs)
            group._limit(memory_mb, max_processes)
        except OSError:
            _kill_and_remove(made)
            return None
        return group

    def _limit(self, memory_mb: int, max_processes: int) -> None:
        _write(self.dirs["pids"] / "pids.max", str(max_processes))
        memory, cpu = self.dirs.get("memory"), self.dirs.get("cpu")
        budget = str(memory_mb * 2**20)
        if memory is not None and self.version == 1:
            _write(memory / "memory.limit_in_bytes", budget)
            if (memory / "memory.memsw.limit_in_bytes").exists():  # absent when the kernel has no swap accounting
                _write(memory / "memory.memsw.limit_in_bytes", budget)
            with contextlib.suppress(OSError):
                _write(memory / "memory.swappiness", "0")
        elif memory is not None:
            _write(memory / "memory.max", budget)
            if (memory / "memory.swap.max").exists():
                _write(memory / "memory.swap.max", "0")
            with contextlib.suppress(OSError):
                _write(memory / "memory.oom.group", "1")  # an OOM ends the whole run, not one process of it
        if cpu is not None and self.version == 1:
            _write(cpu / "cpu.cfs_period_us", str(_PERIOD_US))
            _write(cpu / "cpu.cfs_quota_us", str(int(CPU_CORES * _PERIOD_US)))
        elif cpu is not None:
            _write(cpu / "cpu.max", f"{int(CPU_CORES * _PERIOD_US)} {_PERIOD_US}")

    def procs_files(self) -> list[Path]:
        """Each distinct ``cgroup.procs`` a process must join (v1: one per hierarchy)."""
        return [path / "cgroup.procs" for path in dict.fromkeys(self.dirs.values())]

    def usage(self) -> Usage:
        memory, cpuacct, pids = self.dirs.get("memory"), self.dirs.get("cpuacct"), self.dirs["pids"]
        usage = Usage(forks_refused=_read_key(pids / "pids.events", "max"))
        if cpuacct is not None:
            if self.version == 1:
                ns = _read_int(cpuacct / "cpuacct.usage")
                usage.cpu_s = ns / 1e9 if ns is not None else None
            else:
                usage.cpu_s = _read_key(cpuacct / "cpu.stat", "usage_usec") / 1e6
        if memory is not None:
            if self.version == 1:
                usage.peak_memory_bytes = _read_int(memory / "memory.max_usage_in_bytes")
                usage.oom_kills = _read_key(memory / "memory.oom_control", "oom_kill")
            else:
                usage.peak_memory_bytes = _read_int(memory / "memory.peak")
                usage.oom_kills = _read_key(memory / "memory.events", "oom_kill")
        return usage

    def kill_all(self) -> None:
        for directory in dict.fromkeys(self.dirs.values()):
            with contextlib.suppress(OSError):
                (directory / "cgroup.kill").write_text("1")
            for pid in _procs(directory):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def kill_all_and_remove(self) -> None:
        _kill_and_remove(list(dict.fromkeys(self.dirs.values())))
