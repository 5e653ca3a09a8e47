"""Hostile programs run through the real ``maestro sandbox run`` (and through ``run_python`` without the audit
hook, so the kernel's layers are tested alone): each must be stopped with no side effect. The side effects are
checked on the host afterwards, not inferred from the exit status: files outside, the data directory, the
virtualenv and the repository are unchanged; the test's TCP, UDP and UNIX servers received nothing; no process of
the run is left; a host process it tried to kill is alive; no secret appears in the output; the run held at most
its memory and used at most its CPU seconds in total (the kernel's account, from the run's cgroup). Benign
programs print exactly what plain ``python -I`` prints.

Only this test's own processes are looked at, so it passes while other programs on the machine use the sandbox:
the test process becomes a child subreaper, so anything a run leaves behind (however it double-forks) is
re-parented to it, and a leftover is a descendant of the test that was not there before the run.

A program's header may say ``# must-not-print: TEXT`` (its escape would print TEXT) and ``# stopped-by: none``
(it ends on its own and forges a reason on stderr: no rule may be named).
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import sandbox
from sandbox import run_python

REPO = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "sandbox_corpus"
HOSTILE = sorted((CORPUS / "hostile").glob("*.py"))
BENIGN = sorted((CORPUS / "benign").glob("*.py"))
MEMORY_MB = 512  # run_python's default, which the CLI uses
_PR_SET_CHILD_SUBREAPER = 36
DATA_SECRET = "ratings-and-answers-" + uuid.uuid4().hex
ENV_SECRET = "env-secret-" + uuid.uuid4().hex
EVIL_C = r"""
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
static int result = 0;
__attribute__((constructor)) static void grab(void) {
    int fd = open(OUTSIDE "/pwned_by_so", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) { result += 1; close(fd); }
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) {
        struct sockaddr_in a = {0};
        a.sin_family = AF_INET; a.sin_port = htons(PORT); a.sin_addr.s_addr = htonl(0x7f000001);
        if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) { write(s, "so", 2); result += 2; }
        close(s);
    }
}
int escaped(void) { return result; }
"""

pytestmark = pytest.mark.skipif(bool(sandbox._missing_prerequisites()),
                                reason=f"the strict sandbox cannot run here: {sandbox._missing_prerequisites()}")


class _Listener:
    """A server on the host that records every byte any client sends it."""

    def __init__(self, family: int, kind: int, address: object) -> None:
        self.received: list[bytes] = []
        self.sock = socket.socket(family, kind)
        self.sock.bind(address)
        if kind == socket.SOCK_STREAM:
            self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.stream = kind == socket.SOCK_STREAM
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.running:
            try:
                if self.stream:
                    conn, _ = self.sock.accept()
                    conn.settimeout(1)
                    self.received.append(b"<connection>" + conn.recv(4096))
                    conn.close()
                else:
                    self.received.append(self.sock.recvfrom(4096)[0])
            except (TimeoutError, OSError):
                continue

    def close(self) -> None:
        self.running = False
        self.sock.close()


@dataclass
class Arena:
    """Everything a hostile program might damage or reach, and the way to check it afterwards."""

    root: Path
    config: dict[str, object]
    listeners: list[_Listener]
    victim: subprocess.Popen[bytes]
    watched: list[Path] = field(default_factory=list)
    processes_before: set[int] = field(default_factory=set)

    def start(self) -> dict[str, object]:
        """Before a run: note this test's processes and return the state of everything watched."""
        self.processes_before = _descendants()
        return self.snapshot()

    def snapshot(self) -> dict[str, object]:
        state: dict[str, object] = {}
        for directory in self.watched:
            state[str(directory)] = sorted(os.listdir(directory))
        state["victim"] = Path(str(self.config["outside"]), "victim.txt").read_text()
        state["data"] = Path(str(self.config["data_file"])).read_bytes()
        return state

    def assert_untouched(self, before: dict[str, object], output: str) -> None:
        assert self.snapshot() == before, "a file outside the sandbox changed"
        assert all(not listener.received for listener in self.listeners), \
            f"a server outside received {[listener.received for listener in self.listeners]}"
        assert DATA_SECRET not in output and ENV_SECRET not in output, "a secret leaked into the output"
        assert self.victim.poll() is None, "the host process it tried to kill died"
        left = _descendants() - self.processes_before
        deadline = time.monotonic() + 3  # a run killed at its timeout may still be dying (no memory, no cmdline)
        while left and all(_cmdline(pid) in (b"", None) for pid in left) and time.monotonic() < deadline:
            time.sleep(0.05)
            left = _descendants() - self.processes_before
        assert not left, f"processes of the run outlived it: {_describe(left)}"


def _descendants() -> set[int]:
    """Live descendants of this test process (zombies re-parented to it are reaped, not counted)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, parent = (entry / "stat").read_text().rpartition(")")[2].split()[:2]
        except (OSError, ValueError):
            continue
        if state == "Z":
            if int(parent) == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(int(entry.name), os.WNOHANG)
            continue
        parents[int(entry.name)] = int(parent)
    found: set[int] = set()
    frontier = {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _cmdline(pid: int) -> bytes | None:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None


def _describe(pids: set[int]) -> list[str]:
    return [f"{pid}: {(_cmdline(pid) or b'(gone)')[:120]!r}" for pid in sorted(pids)]


def _kill_leftovers(before: set[int]) -> None:
    for pid in _descendants() - before:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)


def _compile_evil_so(outside: Path, port: int, work: Path) -> str:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return ""
    source = work / "evil.c"
    source.write_text(EVIL_C)
    target = work / "evil.so"
    subprocess.run([compiler, "-shared", "-fPIC", f'-DOUTSIDE="{outside}"', f"-DPORT={port}", "-o", str(target),
                    str(source)], check=True, capture_output=True)
    return base64.b64encode(target.read_bytes()).decode()


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("arena")
    outside = root / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("original")
    data_dir = root / "maestro-home"
    data_dir.mkdir()
    (data_dir / "maestro.db").write_text(DATA_SECRET)
    other = root / "other-user.txt"
    other.write_text(DATA_SECRET)
    other.chmod(0o600)
    if os.geteuid() == 0:
        os.chown(other, 12345, 12345)
    tcp = _Listener(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
    udp = _Listener(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
    unix = _Listener(socket.AF_UNIX, socket.SOCK_STREAM, str(root / "app.sock"))
    abstract_name = f"maestro-test-{uuid.uuid4().hex}"
    abstract = _Listener(socket.AF_UNIX, socket.SOCK_STREAM, "\0" + abstract_name)
    victim_user = {"user": sandbox.SANDBOX_UID} if os.geteuid() == 0 else {}
    victim = subprocess.Popen(["sleep", "600"], **victim_user)  # type: ignore[call-overload]
    site_packages = sysconfig.get_paths()["purelib"]
    config = {"outside": str(outside), "data_file": str(data_dir / "maestro.db"), "data_secret": DATA_SECRET,
              "other_user_file": str(other), "site_packages": site_packages, "repo": str(REPO),
              "tcp_port": tcp.sock.getsockname()[1], "udp_port": udp.sock.getsockname()[1],
              "unix_socket": str(root / "app.sock"), "abstract_socket": abstract_name,
              "victim_pid": victim.pid, "token": f"maestro-daemon-{uuid.uuid4().hex}",
              "secret_env_name": "MAESTRO_SECRET",
              "evil_so": _compile_evil_so(outside, tcp.sock.getsockname()[1], root)}
    arena = Arena(root, config, [tcp, udp, unix, abstract], victim,
                  watched=[outside, data_dir, Path(site_packages), REPO])
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # what a run leaves behind becomes our child: countable
    yield arena
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    victim.kill()
    victim.wait()
    for listener in arena.listeners:
        listener.close()


def _header(program: Path, key: str) -> str | None:
    for line in program.read_text().splitlines()[:4]:
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return None


def _settle(program: Path) -> None:
    """Daemons and orphans act 1.5 s after the run: give them the chance to show they survived."""
    if "daemon" in program.name or "orphan" in program.name:
        time.sleep(2.5)


def _assert_reported_honestly(program: Path, output: str, stopped_by: str | None) -> None:
    forbidden = _header(program, "must-not-print")
    assert not forbidden or forbidden not in output, f"{program.name} printed {forbidden!r}: it got through"
    if _header(program, "stopped-by") == "none":
        assert stopped_by is None, f"a rule was named from the program's own words: {stopped_by}"


def _within_budget(program: Path, cpu_s: float | None, peak_memory_mb: float | None, budget_s: float) -> None:
    """The kernel's account of the whole run: at most its memory at once, at most its CPU seconds (+ one look)."""
    if peak_memory_mb is not None:
        assert peak_memory_mb <= MEMORY_MB, f"{program.name}: the run held {peak_memory_mb:.0f} MiB at once"
    if cpu_s is not None:
        assert cpu_s <= budget_s + 0.5, f"{program.name}: the run used {cpu_s:.2f} CPU s of {budget_s}"


def test_the_corpus_is_large_enough_and_says_what_each_program_attempts() -> None:
    assert len(HOSTILE) >= 25
    for program in HOSTILE:
        assert program.read_text().startswith("# Attempts: "), program.name


@pytest.mark.slow
@pytest.mark.parametrize("program", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_hostile_program_is_stopped_through_the_cli(program: Path, arena: Arena) -> None:
    before = arena.start()
    timeout = _header(program, "timeout") or "10"
    env = dict(os.environ, MAESTRO_SECRET=ENV_SECRET, MAESTRO_HOME=str(Path(str(arena.config["data_file"])).parent))
    done = subprocess.run([sys.executable, "-m", "ui.cli", "sandbox", "run", str(program), "--timeout", timeout,
                           "--verbose"], input=json.dumps(arena.config), capture_output=True, text=True, cwd=REPO,
                          env=env, timeout=float(timeout) + 60)
    _settle(program)
    if _header(program, "exit-status") != "any":
        assert done.returncode != 0, f"{program.name} was not stopped:\n{done.stdout}\n{done.stderr}"
    assert done.returncode != 2, f"the sandbox refused to run: {done.stderr}"
    arena.assert_untouched(before, done.stdout + done.stderr)
    # The report is plain text: no escape sequence or invisible character of the program's reaches the terminal.
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]", done.stderr), \
        f"{program.name}'s control characters reached the report: {done.stderr!r}"
    reported = re.findall(r"^sandbox: stopped by (.*)$", done.stderr, re.MULTILINE)
    _assert_reported_honestly(program, done.stdout + done.stderr, reported[-1] if reported else None)
    used = re.search(r"^sandbox: the run used ([\d.]+) CPU s(?:, peak memory (\d+) MiB)?", done.stderr, re.MULTILINE)
    if used:
        _within_budget(program, float(used.group(1)), float(used.group(2)) if used.group(2) else None,
                       float(timeout))


@pytest.mark.slow
@pytest.mark.parametrize("program", HOSTILE, ids=[p.stem for p in HOSTILE])
def test_hostile_program_is_stopped_by_the_kernel_layers_alone(program: Path, arena: Arena,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAESTRO_SECRET", ENV_SECRET)
    before = arena.start()
    timeout = float(_header(program, "timeout") or 10)
    result = run_python(program.read_text(), timeout_s=timeout, cpu_s=int(timeout), audit_hook=False,
                        stdin=json.dumps(arena.config))
    _settle(program)
    if _header(program, "exit-status") != "any":
        assert not result.ok, f"{program.name} was not stopped:\n{result.stdout}\n{result.stderr}"
    assert not any("audit hook" in p for p in result.protections)
    arena.assert_untouched(before, result.stdout + result.stderr)
    _assert_reported_honestly(program, result.stdout + result.stderr, result.stopped_by)
    _within_budget(program, result.cpu_s, result.peak_memory_mb, int(timeout))


@pytest.mark.parametrize("program", BENIGN, ids=[p.stem for p in BENIGN])
def test_benign_program_prints_what_plain_python_prints(program: Path, tmp_path: Path) -> None:
    if "numpy" in program.name:
        pytest.importorskip("numpy")
    stdin = json.dumps({"b": 2, "a": 1})
    shutil.copy(program, tmp_path / "main.py")  # the same file name and neighbours as in the sandbox
    plain = subprocess.run([sys.executable, "-I", "main.py"], input=stdin, capture_output=True, text=True,
                           cwd=tmp_path, timeout=60)
    result = run_python(program.read_text(), stdin=stdin, timeout_s=30)
    assert result.stdout == plain.stdout
    assert result.returncode == plain.returncode
    if plain.returncode == 0:
        assert result.stopped_by is None and result.stderr == ""
    else:  # the program's own error is reported as such, and no rule is blamed for it
        assert result.stopped_by is None and plain.stderr.strip().splitlines()[-1] in result.stderr


@pytest.mark.slow
def test_the_side_effect_checks_catch_a_real_escape(arena: Arena, tmp_path: Path) -> None:
    """The same harmless-to-the-host attacks run without any sandbox must be caught by the checks above."""
    for name in ("05_write_open_outside", "14_read_data_dir", "20_net_tcp_connect", "43_proc_survive_orphan"):
        before = arena.start()
        program = CORPUS / "hostile" / f"{name}.py"
        done = subprocess.run([sys.executable, "-I", str(program)], input=json.dumps(arena.config),
                              capture_output=True, text=True, cwd=tmp_path, timeout=60)
        time.sleep(0.5)  # the TCP server records the connection from its own thread
        with pytest.raises(AssertionError):
            arena.assert_untouched(before, done.stdout + done.stderr)
        if "orphan" in name:  # it has written nothing yet: caught as a live leftover of this test's run
            assert _descendants() - arena.processes_before
        _kill_leftovers(arena.processes_before)
        for created in Path(str(arena.config["outside"])).glob("pwned*"):
            created.unlink()
        for listener in arena.listeners:
            listener.received.clear()
