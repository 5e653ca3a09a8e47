"""Running untrusted Python (written by an expert, or read from an image) in a locked-down child process.

Never ``eval`` in process. The child runs ``python -I`` in a fresh temporary directory with a scrubbed
environment, in its own session (the whole group is killed on timeout), under resource limits (CPU seconds,
address space, file size, open files), and with an audit hook installed before the user's code
that refuses sockets, subprocesses, process-spawning and FFI modules, and any file access outside its temporary directory (the Python standard
library stays readable). Where the kernel allows it (root, or unprivileged user namespaces) the child also gets an
empty network namespace. The data directory is never visible to it.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_CLONE_NEWNET = 0x40000000
_GUARD = r'''
import os, sys
_root = os.path.realpath(os.getcwd())
_readable = tuple(os.path.realpath(p) for p in %(readable)s)
_BLOCKED = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
            "os.forkpty", "pty.", "ctypes.", "os.kill", "os.killpg", "shutil.rmtree", "os.chdir", "os.chroot")

def _inside(path, roots):
    try:
        real = os.path.realpath(os.fsdecode(path))
    except Exception:
        return False
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)

_NO_IMPORT = {"_posixsubprocess", "_socket", "_ctypes", "ctypes", "socket", "_ssl", "ssl", "pty", "fcntl"}

def _hook(event, args):
    if event == "import" and args and str(args[0]).split(".")[0] in _NO_IMPORT:
        raise ImportError(f"sandbox: importing {args[0]} is not allowed")
    if event.startswith(_BLOCKED):
        raise PermissionError(f"sandbox: {event} is not allowed")
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        path, mode = args[0], (args[1] or "r")
        writing = any(c in str(mode) for c in "wax+")
        if not _inside(path, (_root,)) and (writing or not _inside(path, _readable)):
            raise PermissionError(f"sandbox: access to {os.fsdecode(path)!r} is not allowed")
    if event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link", "os.chmod",
                 "os.chown", "os.truncate", "os.utime") and args:
        if not _inside(args[0], (_root,)):
            raise PermissionError(f"sandbox: {event} outside the working directory is not allowed")

sys.addaudithook(_hook)
del _hook
'''


@dataclass
class SandboxResult:
    """What the code did: its output, exit status, and whether a limit stopped it."""

    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool
    latency_ms: float
    network_isolated: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def summary(self) -> str:
        state = "timed out" if self.timed_out else f"exit {self.returncode}"
        out = (self.stdout.strip() or self.stderr.strip())[:200]
        return f"python {state} in {self.latency_ms:.0f} ms: {out}"

    def to_dict(self) -> dict[str, object]:
        return {"stdout": self.stdout, "stderr": self.stderr, "returncode": self.returncode,
                "timed_out": self.timed_out, "network_isolated": self.network_isolated}


def run_python(code: str, *, timeout_s: float = 10.0, cpu_s: int = 5, memory_mb: int = 512,
               max_output: int = 20_000, stdin: str = "") -> SandboxResult:
    """Run ``code`` in the sandbox and return its captured output (truncated to ``max_output`` characters)."""
    readable = sorted({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
                      | {sys.base_prefix, sys.prefix})
    guard = _GUARD % {"readable": json.dumps(readable)}
    with tempfile.TemporaryDirectory(prefix="maestro-sandbox-") as workdir:
        script = Path(workdir) / "main.py"
        script.write_text(guard + "\n" + code, encoding="utf-8")
        env = {"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
        isolated = _network_isolation_available()
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-I", str(script)], cwd=workdir, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
            preexec_fn=lambda: _limit(cpu_s, memory_mb, isolated), close_fds=True)
        timed_out = False
        try:
            stdout, stderr = child.communicate(stdin, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(child.pid, signal.SIGKILL)
            stdout, stderr = child.communicate()
        elapsed = (time.perf_counter() - started) * 1000
    killed_by_cpu = child.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not timed_out
    return SandboxResult(_cut(stdout, max_output), _cut(_clean_trace(stderr, workdir), max_output),
                         child.returncode, timed_out or killed_by_cpu, elapsed, isolated)


def _limit(cpu_s: int, memory_mb: int, isolate_network: bool) -> None:
    """Runs in the child between fork and exec."""
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if isolate_network:
        ctypes.CDLL(None, use_errno=True).unshare(_CLONE_NEWNET)


_ISOLATION: bool | None = None


def _network_isolation_available() -> bool:
    """Whether this process may create a network namespace (checked once, in a throwaway child)."""
    global _ISOLATION
    if _ISOLATION is None:
        probe = "import ctypes,sys; sys.exit(0 if ctypes.CDLL(None).unshare(0x40000000) == 0 else 1)"
        try:
            _ISOLATION = subprocess.run([sys.executable, "-I", "-c", probe], timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _ISOLATION = False
    return _ISOLATION


def _clean_trace(stderr: str, workdir: str) -> str:
    return stderr.replace(workdir + "/", "")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… [{len(text) - limit} more characters cut]"
