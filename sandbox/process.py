"""Starting a sandboxed child, reading its output without letting it flood us, and naming the rule that stopped it.

``execute`` is the process plumbing shared by every sandbox mode: output is read while the child runs and kept
only up to a bound (a program printing gigabytes costs the app nothing), the wall-clock timeout kills the whole
process group, a monitor (the run's cgroup counters) may end the run early, and the prelude's status line (what it
applied, or why it refused) is read from its own pipe.

``stopped_by`` names the protection that ended a program from trusted accounts only: the status pipe (written by
the prelude before any user code runs, then closed), the parent's own timer and monitor and the run's cgroup
counters; an exit signal only where the CPU account agrees (bubblewrap's 128 + N is a status any program can
choose). Nothing the program prints counts there, since a program can print anything.
``stderr_hint`` reads the program's last error line for the rule it *looks like* it hit (a read-only path, a
refused call): a hint for people and a reason for the Python Code skill to abstain, never an attribution.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO


@dataclass
class ProcessOutcome:
    """The raw result of one child process."""

    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool
    elapsed_ms: float
    status: dict[str, object] = field(default_factory=dict)
    stopped: str | None = None  # the monitor's reason for ending the run early


class _BoundedReader(threading.Thread):
    """Drains a pipe to its end, keeping at most ``limit`` bytes (the rest is counted and dropped)."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.limit = stream, limit
        self.kept = bytearray()
        self.dropped = 0

    def run(self) -> None:
        while chunk := self.stream.read1(65536):  # type: ignore[attr-defined]
            room = self.limit - len(self.kept)
            self.kept += chunk[:max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self, max_chars: int) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        cut = len(text) - max_chars if len(text) > max_chars else 0
        if cut or self.dropped:
            more = cut + self.dropped
            text = text[:max_chars] + f"\n… [{more} more characters cut]"
        return text


_POLL_S = 0.1


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
    except (BrokenPipeError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def execute(argv: list[str], *, env: dict[str, str], stdin: str, pass_fds: tuple[int, ...], timeout_s: float,
            max_output: int, status_read: int, close_after_start: list[int], cwd: str | None = None,
            monitor: Callable[[], str | None] | None = None, on_stop: Callable[[], None] | None = None) -> ProcessOutcome:
    """Run ``argv`` in its own session; kill the group at ``timeout_s``; read the status pipe at the end.

    ``monitor`` is asked every ``_POLL_S`` while the child runs; a reason it returns ends the run (the group is
    killed and ``on_stop`` kills the rest, e.g. the run's cgroup) and is kept as ``ProcessOutcome.stopped``.
    """
    started = time.perf_counter()
    try:
        child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, cwd=cwd, pass_fds=pass_fds, close_fds=True, start_new_session=True)
    finally:
        for fd in close_after_start:
            os.close(fd)
    assert child.stdin and child.stdout and child.stderr
    readers = [_BoundedReader(child.stdout, max_output * 4), _BoundedReader(child.stderr, max_output * 4)]
    feeder = threading.Thread(target=_feed, args=(child.stdin, stdin.encode("utf-8")), daemon=True)
    for thread in (*readers, feeder):
        thread.start()
    timed_out, stopped = False, None
    deadline = started + timeout_s
    while True:
        try:
            child.wait(timeout=max(0.0, min(_POLL_S, deadline - time.perf_counter())))
            break
        except subprocess.TimeoutExpired:
            stopped = monitor() if monitor is not None else None
            timed_out = stopped is None and time.perf_counter() >= deadline
            if stopped is not None or timed_out:
                _kill_group(child.pid)
                if on_stop is not None:
                    on_stop()
                child.wait()
                break
    elapsed = (time.perf_counter() - started) * 1000
    for reader in readers:
        reader.join(timeout=5)
        if reader.is_alive():  # something outside the namespaces still holds the pipe: end it
            _kill_group(child.pid)
            reader.join(timeout=5)
    status = _read_status(status_read)
    return ProcessOutcome(readers[0].text(max_output), _clean_trace(readers[1].text(max_output)), child.returncode,
                   timed_out, elapsed, status, stopped)


def _read_status(fd: int) -> dict[str, object]:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    data = b""
    try:
        while chunk := os.read(fd, 65536):
            data += chunk
    except BlockingIOError:
        pass
    finally:
        os.close(fd)
    try:
        parsed = json.loads(data.decode("utf-8")) if data else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _clean_trace(stderr: str) -> str:
    """Drop the prelude's own frames (``<string>``) from tracebacks: they say nothing about the user's code."""
    return "\n".join(line for line in stderr.split("\n") if not line.startswith('  File "<string>"'))


_ERRNO_RULES = (
    (r"sandbox: .* is not allowed", "audit hook"),
    (r"MemoryError|Cannot allocate memory|\[Errno 12\]", "memory limit (RLIMIT_AS)"),
    (r"\[Errno 1\]|Operation not permitted", "seccomp filter or missing privilege (EPERM)"),
    (r"\[Errno 18\]|Invalid cross-device link", "filesystem view (separate mounts: no link or rename across)"),
    (r"can't start new thread", "process limit"),
    (r"\[Errno 13\]|Permission denied", "filesystem rules (read-only view, Landlock)"),
    (r"\[Errno 30\]|Read-only file system", "filesystem view (read-only)"),
    (r"\[Errno 11\]|Resource temporarily unavailable", "process limit"),
    (r"\[Errno 24\]|Too many open files", "open files limit"),
    (r"\[Errno 27\]|File too large", "file size limit"),
    (r"\[Errno 28\]|No space left", "workspace size limit (tmpfs)"),
    (r"\[Errno 101\]|Network is unreachable", "network namespace"),
    (r"\[Errno 3\]|No such process", "pid namespace"),
    (r"\[Errno 38\]|Function not implemented", "seccomp filter (the system call is refused)"),
)


def stopped_by(outcome: ProcessOutcome, returncode: int | None, *, cpu_limit_reached: bool, oom_kills: int,
               forks_refused: int) -> str | None:
    """The protection that ended the program, from trusted accounts only (see the module's docstring)."""
    if "refused" in outcome.status:
        return "sandbox refused to start"
    if outcome.stopped:
        return outcome.stopped
    if outcome.timed_out:
        return "wall-clock timeout"
    if oom_kills:
        return f"memory limit (the kernel killed {oom_kills} process(es) of the run)"
    if returncode == 0 or returncode is None:
        return None
    # A death by signal is no account of its own: bubblewrap reports signal N as exit status 128 + N, which a
    # program may choose (``os._exit(152)``), and a program may raise any signal on itself. SIGXCPU counts only
    # when the CPU account agrees; SIGXFSZ is ignored by Python (the limit shows as EFBIG, a hint) and the seccomp
    # filter never kills (it answers EPERM, for calls under another ABI too), so a death by either is the program's own
    # doing.
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL) and cpu_limit_reached:
        return "CPU time limit"
    if forks_refused:
        return f"process limit (the kernel refused {forks_refused} fork(s))"
    return None


def stderr_hint(returncode: int | None, stderr: str) -> str | None:
    """The rule the program's last error line looks like it hit: the program's own words, never trusted."""
    if returncode == 0:
        return None
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    if "FileNotFoundError" in last or "No such file or directory" in last:
        path = re.search(r"'(/[^']*)'", last) or re.search(r"(?<![\w.])(/[\w./-]+)", last)
        return "filesystem view (the path does not exist inside)" if path and not path.group(1).startswith(
            "/sandbox") else None
    for pattern, rule in _ERRNO_RULES:
        if re.search(pattern, last):
            return rule
    return None
