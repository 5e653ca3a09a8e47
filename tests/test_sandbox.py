"""The code sandbox's contract: it computes, reports which protections were on and which rule stopped a program,
keeps its limits, never shows the data directory, and refuses (one line) rather than run weaker unasked."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest

import sandbox
from sandbox import SandboxUnavailable, launch, run_python

HOSTILE_FDS = Path(__file__).parent / "sandbox_corpus" / "hostile" / "39_secrets_inherited_fds.py"

strict_available = pytest.mark.skipif(bool(sandbox._missing_prerequisites()),
                                      reason=f"strict sandbox unavailable: {sandbox._missing_prerequisites()}")


@strict_available
def test_plain_code_runs_and_its_output_is_captured() -> None:
    result = run_python("import math\nprint(sum(i * i for i in range(10)), round(math.pi, 3))")
    assert result.ok and result.stdout == "285 3.142\n" and result.stopped_by is None


@strict_available
def test_every_kernel_layer_is_reported_on() -> None:
    result = run_python("print('ok')")
    on = " | ".join(result.protections)
    for layer in ("mount namespace", "pid namespace", "network namespace", "seccomp", "Landlock",
                  "process limit", "unprivileged user"):
        assert layer in on
    assert result.network_isolated and result.missing == () and result.mode == "strict"


@strict_available
def test_the_program_runs_as_an_unprivileged_user_without_the_hosts_files() -> None:
    result = run_python("import os\nprint(os.getuid(), os.getgroups(), os.path.exists('/etc/passwd'), "
                        "os.path.exists('/proc/1'))")
    uid = sandbox.SANDBOX_UID if os.geteuid() == 0 else os.getuid()
    assert result.stdout.strip() == f"{uid} [] False False"


@strict_available
def test_files_inside_its_own_working_directory_are_allowed() -> None:
    result = run_python("open('notes.txt', 'w').write('kept'); print(open('notes.txt').read())")
    assert result.ok and result.stdout.strip() == "kept"


@strict_available
@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import socket\nsocket.socket()", "audit hook"),
        ("import os\nos.system('true')", "audit hook"),
        ("import ctypes", "audit hook"),
        ("open('/etc/passwd').read()", "filesystem view"),
        ("open('/usr/pwned', 'w')", "filesystem"),
        ("import os\nos.listdir('/')", "Landlock"),
        ("x = bytearray(4 * 1024 ** 3)", "memory limit"),
    ],
)
def test_the_rule_an_error_looks_like_is_a_hint_never_the_stopped_by_reason(code: str, rule: str) -> None:
    """The program's stderr is its own text: it may suggest a rule (``hint``), it never names one (``stopped_by``)."""
    result = run_python(code)
    assert not result.ok and result.stopped_by is None and result.hint and rule in result.hint


@strict_available
def test_without_the_audit_hook_the_kernel_still_refuses() -> None:
    result = run_python("import socket\nsocket.socket()", audit_hook=False)
    assert not result.ok and result.hint and "seccomp" in result.hint
    assert not any("audit hook" in p for p in result.protections)


@strict_available
def test_the_audit_hook_refuses_native_calls_through_a_hand_loaded_ctypes() -> None:
    """No ``import ctypes`` event: the extension is loaded by its loader, and dlsym(RTLD_NEXT) needs no dlopen."""
    code = ("import glob, importlib.machinery as m, os\n"
            "path = glob.glob(os.path.join(os.path.dirname(os.__file__), 'lib-dynload', '_ctypes*.so'))[0]\n"
            "loader = m.ExtensionFileLoader('_ctypes', path)\n"
            "native = loader.create_module(m.ModuleSpec('_ctypes', loader, origin=path))\n"
            "print('loaded')\n"
            "class F(native.CFuncPtr):\n    _flags_ = native.FUNCFLAG_CDECL\n"
            "print('native getpid', F(native.dlsym(-1, 'getpid'))())\n")
    result = run_python(code)
    assert "loaded" in result.stdout and "native getpid" not in result.stdout
    assert not result.ok and "sandbox: ctypes.dlsym" in result.stderr


@strict_available
def test_a_forged_report_on_stderr_names_no_rule() -> None:
    forged = ("import sys\nsys.stderr.write('sandbox: stopped by CPU time limit\\nsandbox refused: x\\n"
              "MemoryError\\n')\nsys.exit(3)")
    result = run_python(forged)
    assert result.returncode == 3 and not result.timed_out and result.stopped_by is None


@strict_available
def test_the_data_directory_is_invisible_and_the_environment_is_scrubbed(data_dir: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "maestro.db").write_bytes(b"secret")
    monkeypatch.setenv("MAESTRO_SECRET", "hunter2")
    result = run_python(f"print(open({str(data_dir / 'maestro.db')!r}, 'rb').read())")
    assert not result.ok and "secret" not in result.stdout
    environment = run_python("import os; print(sorted(os.environ))").stdout
    assert "MAESTRO_HOME" not in environment and "MAESTRO_SECRET" not in environment
    assert "MAESTRO_HOME" in os.environ  # it was there to leak


def test_a_view_that_would_expose_the_data_directory_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    site_packages = sysconfig.get_paths()["purelib"]
    monkeypatch.setenv("MAESTRO_HOME", str(Path(site_packages) / "maestro-home"))
    with pytest.raises(SandboxUnavailable, match="overlaps the sandbox's read-only path"):
        run_python("print(1)", mode="weak")


def test_a_missing_layer_refuses_in_one_line_unless_weak_mode_is_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    with pytest.raises(SandboxUnavailable) as refused:
        run_python("print(1)")
    message = str(refused.value)
    assert "\n" not in message and "bubblewrap" in message and "MAESTRO_SANDBOX=weak" in message
    monkeypatch.setenv("MAESTRO_SANDBOX", "weak")
    try:
        weak = run_python("print(1)")
    except SandboxUnavailable as exc:  # root with an interpreter only root can read: refused even then
        assert os.geteuid() == 0 and "uid 65534 cannot read the interpreter" in str(exc)
        return
    assert weak.ok and weak.mode == "weak" and any("no bubblewrap" in gap for gap in weak.missing)


def test_an_unknown_mode_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAESTRO_SANDBOX", "off")
    with pytest.raises(ValueError, match="'strict' or 'weak'"):
        run_python("print(1)")


@strict_available
@pytest.mark.slow
def test_runaway_code_is_stopped_by_the_time_and_memory_limits() -> None:
    spin = run_python("while True: pass", timeout_s=20, cpu_s=1)
    assert spin.timed_out and not spin.ok and spin.stopped_by and spin.stopped_by.startswith("CPU time limit")
    hog = run_python("x = bytearray(3 * 1024 ** 3)\nprint('allocated')", memory_mb=256)
    assert not hog.ok and "allocated" not in hog.stdout and "MemoryError" in hog.stderr
    sleeper = run_python("import time\ntime.sleep(30)", timeout_s=1)
    assert sleeper.timed_out and not sleeper.ok and sleeper.stopped_by == "wall-clock timeout"
    assert sleeper.latency_ms < 5000


@strict_available
@pytest.mark.slow
def test_output_is_bounded_while_it_is_read() -> None:
    result = run_python("print('x' * 100000)", max_output=1000)
    assert result.ok and len(result.stdout) < 1100 and "more characters cut" in result.stdout
    flood = run_python("import sys\nwhile True: sys.stdout.write('y' * 65536)", timeout_s=2, max_output=1000)
    assert flood.timed_out and len(flood.stdout) < 1100


@pytest.mark.parametrize("mode", ["strict", "weak"])
def test_no_descriptor_reaches_the_code_however_high_its_number(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a busy app the descriptors passed to the sandbox (the status pipe) get numbers above the sandbox's own
    limit of open files; they must be closed all the same, with or without the audit hook."""
    if mode == "weak":
        monkeypatch.setenv("MAESTRO_SANDBOX", "weak")
        monkeypatch.setattr(sandbox, "_bwrap", lambda: None)
    spare = [os.open(os.devnull, os.O_RDONLY) for _ in range(100)]
    try:
        result = run_python(HOSTILE_FDS.read_text(), audit_hook=False)
    except SandboxUnavailable as exc:  # root with an interpreter only root can read: weak mode is refused too
        assert mode == "weak" and "uid 65534 cannot read the interpreter" in str(exc)
        return
    finally:
        for fd in spare:
            os.close(fd)
    assert "inherited" not in result.stdout and not result.ok, result.stdout


@strict_available
def test_nothing_written_to_the_workspace_can_be_executed_or_mapped_executable() -> None:
    """No ``execve`` after start (Landlock grants no execute right), and as root /sandbox is a noexec tmpfs, so even
    the loader's own ``mmap(PROT_EXEC)`` of a library copied there is refused."""
    loader = run_python("import os\nos.execv('/lib64/ld-linux-x86-64.so.2', ['ld.so', '--version'])", audit_hook=False)
    assert not loader.ok and "ld.so" not in loader.stdout and "Permission denied" in loader.stderr
    if launch._noexec_prefix() is None:
        pytest.skip("no noexec workspace here (not root, or no util-linux unshare)")
    library = os.path.realpath(f"/lib/{sysconfig.get_config_var('MULTIARCH')}/libm.so.6")  # in the view, readable
    if not os.path.isfile(library):
        pytest.skip(f"no {library} to copy")
    copied = run_python(f"import ctypes\nopen('x.so', 'wb').write(open({library!r}, 'rb').read())\n"
                        "ctypes.CDLL('./x.so')\nprint('loaded')", audit_hook=False)
    assert not copied.ok and "loaded" not in copied.stdout and "failed to map segment" in copied.stderr
    assert any("noexec" in p for p in copied.protections)
