"""Running untrusted Python (written by an expert, or read from an image) in a sandbox the kernel enforces.

Nothing here depends on state the user's code can reach. Each run gets, in this order:

* a **filesystem view** built by bubblewrap in a fresh mount namespace: only the interpreter, its standard
  library, the virtualenv's site-packages, the system library directories and ``/dev/{null,zero,random,urandom}``
  exist, all read-only; ``/sandbox`` (the working directory, ``HOME`` and ``TMPDIR``) is a new tmpfs capped at
  64 MiB. No ``/proc``, ``/etc``, home, repository or data directory exists inside;
* **pid, network, ipc and uts namespaces**: the program is alone (no other pids to signal, no interface but a
  down loopback), and when it exits or times out the namespace's init dies and the kernel kills every process
  left, daemons included;
* a **seccomp filter** (compiled by libseccomp): sockets of every family, ptrace, mount, unshare/setns and clone
  with namespace flags, bpf, keyrings, modules, io_uring, memfd and clock changes answer EPERM; no new privileges;
* an **unprivileged user**: run as root, the prelude drops to uid/gid 65534 with no groups and no capabilities;
  otherwise bubblewrap's user namespace maps the caller's own uid;
* a **process limit**: a pids cgroup (``pids.max`` 64) when root, ``RLIMIT_NPROC`` counted inside the run's own
  user namespace otherwise; the cgroup is also swept with SIGKILL at the end;
* **Landlock** rules mirroring the view (read-only paths, read-write ``/sandbox``, execute only the interpreter
  and loader), a second fence should the view ever be wrong;
* **resource limits**: CPU seconds, address space, file size, open files, no core files; output is cut at
  ``max_output`` characters while it is read, and a wall-clock timeout kills the tree;
* the Python **audit hook**, a first line only: it turns the common mistakes (subprocess, sockets, ctypes) into
  clear messages, and nothing relies on it.

Libraries: bubblewrap (Debian ``bubblewrap``; the namespace and mount tool Flatpak relies on, maintained by the
containers project) builds the view and namespaces, rather than our own mount code; ``pyseccomp`` (pure-Python
ctypes binding, API-compatible with libseccomp's own) drives libseccomp (Debian ``libseccomp2``, which apt itself
depends on), so the BPF program comes from the reference compiler; ``landlock`` (pure Python, MIT) wraps the
three Landlock system calls. Each is small and has no compiled part of its own.

If a layer is missing (no bubblewrap, a kernel without user namespaces, Landlock or seccomp, no pids cgroup as
root) the run is refused with one line saying what is missing, unless the operator opts in to a weaker mode with
``MAESTRO_SANDBOX=weak`` (or ``maestro sandbox run --weak``); the result then lists what was left out. Never
silently weaker. The data directory is never bound into the view; a run whose view would overlap it is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sandbox import policy
from sandbox.process import Outcome, execute, stopped_by

MODE_ENV = "MAESTRO_SANDBOX"
SANDBOX_UID = 65534
MAX_PROCESSES = 64
WORKSPACE_BYTES = 64 * 1024 * 1024
FILE_BYTES = 16 * 1024 * 1024
OPEN_FILES = 64
_REFUSED_EXIT = 125
_CHILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": policy.WORKDIR, "TMPDIR": policy.WORKDIR, "LANG": "C.UTF-8",
              "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
              "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run code here as required; the message is one line saying what is missing."""


@dataclass
class SandboxResult:
    """What the code did: its output, exit status, which protections were on, and which rule stopped it."""

    stdout: str
    stderr: str
    returncode: int | None  # negative: killed by that signal
    timed_out: bool
    latency_ms: float
    protections: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    stopped_by: str | None = None
    mode: str = "strict"
    details: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def network_isolated(self) -> bool:
        return any(p.startswith("network namespace") for p in self.protections)

    def summary(self) -> str:
        state = "timed out" if self.timed_out else f"exit {self.returncode}"
        out = (self.stdout.strip() or self.stderr.strip())[:200]
        rule = f" (stopped by {self.stopped_by})" if self.stopped_by else ""
        return f"python {state}{rule} in {self.latency_ms:.0f} ms: {out}"

    def to_dict(self) -> dict[str, object]:
        return {"stdout": self.stdout, "stderr": self.stderr, "returncode": self.returncode,
                "timed_out": self.timed_out, "network_isolated": self.network_isolated,
                "stopped_by": self.stopped_by, "mode": self.mode, "protections": list(self.protections),
                "missing": list(self.missing)}


def sandbox_mode(mode: str | None = None) -> str:
    """``strict`` (default: refuse when a layer is missing) or ``weak`` (run with what this machine has)."""
    chosen = (mode or os.environ.get(MODE_ENV) or "strict").strip().lower()
    if chosen not in ("strict", "weak"):
        raise ValueError(f"{MODE_ENV} must be 'strict' or 'weak', not {chosen!r}")
    return chosen


def run_python(code: str, *, timeout_s: float = 10.0, cpu_s: int = 5, memory_mb: int = 512,
               max_output: int = 20_000, stdin: str = "", mode: str | None = None, audit_hook: bool = True,
               hidden: tuple[Path, ...] = ()) -> SandboxResult:
    """Run ``code`` in the sandbox and return its captured output (each stream cut to ``max_output`` characters).

    Raises ``SandboxUnavailable`` when a required protection is missing (strict mode) or when the view would
    expose a hidden path (``hidden`` plus ``MAESTRO_HOME`` and ``~/.maestro``: the data directory).
    """
    mode = sandbox_mode(mode)
    view = policy.filesystem_view()
    overlap = policy.overlapping(view.sources(), [*hidden, *_data_dirs()])
    if overlap:
        raise SandboxUnavailable(f"sandbox refused: {overlap}")
    missing = _missing_prerequisites()
    if missing and mode == "strict":
        raise SandboxUnavailable(
            "sandbox refused: this machine lacks " + "; ".join(missing)
            + f" (install or enable it, or set {MODE_ENV}=weak / --weak to run with fewer protections)")
    limits = {"RLIMIT_CPU": (cpu_s, cpu_s + 1), "RLIMIT_AS": (memory_mb * 2**20,) * 2,
              "RLIMIT_FSIZE": (FILE_BYTES,) * 2, "RLIMIT_NOFILE": (OPEN_FILES,) * 2, "RLIMIT_CORE": (0, 0)}
    config: dict[str, object] = {"strict": mode == "strict", "limits": limits, "audit_hook": audit_hook,
                                 "landlock": view.landlock, "max_processes": MAX_PROCESSES,
                                 "site_dirs": view.site_dirs}
    if _bwrap() is not None:
        result = _run_in_bubblewrap(code, view, config, timeout_s, max_output, stdin)
        if result is not None or mode == "strict":
            if result is None:
                raise SandboxUnavailable("sandbox refused: bubblewrap could not create the namespaces")
            result.missing = tuple(missing) + result.missing
            result.mode = mode
            return result
        missing.append("namespaces (bubblewrap could not create them)")
    result = _run_direct(code, view, config, timeout_s, max_output, stdin)
    result.missing = tuple(missing) + result.missing
    result.mode = mode
    return result


def machine_report() -> list[tuple[str, bool, str]]:
    """What this machine supports, layer by layer: (layer, available, detail); a real run decides namespaces."""
    rows: list[tuple[str, bool, str]] = []
    bwrap = _bwrap()
    rows.append(("bubblewrap", bwrap is not None, bwrap or "not installed (Debian: apt-get install bubblewrap)"))
    try:
        rows.append(("seccomp (libseccomp)", True, f"{len(policy.seccomp_program()) // 8} BPF instructions"))
    except (OSError, RuntimeError) as exc:
        rows.append(("seccomp (libseccomp)", False, str(exc)))
    abi = _landlock_abi()
    rows.append(("Landlock", abi > 0, f"ABI {abi}" if abi > 0 else "not enabled in this kernel"))
    if os.geteuid() == 0:
        cgroup = policy.PidsCgroup.create(MAX_PROCESSES)
        rows.append(("pids cgroup", cgroup is not None, str(cgroup.path.parent) if cgroup else "not writable"))
        if cgroup:
            cgroup.kill_all_and_remove()
    else:
        rows.append(("process limit", True, "RLIMIT_NPROC inside the run's user namespace"))
    return rows


def _data_dirs() -> list[Path]:
    env_home = os.environ.get("MAESTRO_HOME")
    return [Path(env_home)] if env_home else [Path.home() / ".maestro"]


def _missing_prerequisites() -> list[str]:
    missing: list[str] = []
    if _bwrap() is None:
        missing.append("bubblewrap (Debian: apt-get install bubblewrap)")
    try:
        policy.seccomp_program()
    except (OSError, RuntimeError) as exc:
        missing.append(f"seccomp through libseccomp ({exc})")
    if _landlock_abi() < 1:
        missing.append("Landlock (Linux 5.13+ with landlock in the lsm= list)")
    if os.geteuid() == 0 and policy._pids_parent() is None:
        missing.append("a writable pids cgroup (needed as root for the process limit)")
    return missing


@cache
def _bwrap() -> str | None:
    return shutil.which("bwrap") or (("/usr/bin/bwrap") if os.access("/usr/bin/bwrap", os.X_OK) else None)


@cache
def _bwrap_supports(option: str) -> bool:
    bwrap = _bwrap()
    if bwrap is None:
        return False
    helped = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    return option in helped.stdout + helped.stderr


@cache
def _landlock_abi() -> int:
    try:
        from landlock.plumbing import landlock_abi_version

        return int(landlock_abi_version())
    except Exception:  # the library raises its own errors on kernels without Landlock
        return 0


@cache
def _prelude_source() -> str:
    return (Path(__file__).with_name("prelude.py")).read_text(encoding="utf-8")


def _temp_fd(data: bytes) -> int:
    """An unlinked temporary file holding ``data``, positioned at its start (bubblewrap copies it in)."""
    fd, path = tempfile.mkstemp(prefix="maestro-sandbox-")
    os.unlink(path)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _run_in_bubblewrap(code: str, view: policy.FilesystemView, config: dict[str, object], timeout_s: float,
                       max_output: int, stdin: str) -> SandboxResult | None:
    """One run inside bubblewrap; None when bubblewrap itself could not build the namespaces."""
    root = os.geteuid() == 0
    protections = [f"filesystem view: mount namespace with {len(view.binds)} read-only paths, "
                   f"/sandbox tmpfs {WORKSPACE_BYTES // 2**20} MiB",
                   "pid namespace (every process killed when the run ends)",
                   "network namespace (no interfaces)", "ipc and uts namespaces"]
    missing: list[str] = []
    cgroup = policy.PidsCgroup.create(MAX_PROCESSES) if root else None
    status_read, status_write = os.pipe()
    fds = [status_write, _temp_fd(code.encode("utf-8"))]
    try:
        seccomp_fd: int | None = _temp_fd(policy.seccomp_program())
        fds.append(seccomp_fd)
        protections.append(f"seccomp filter ({len(policy.DENIED_SYSCALLS)} system calls and namespace clones "
                           "refused, no new privileges)")
    except (OSError, RuntimeError) as exc:
        seccomp_fd = None
        missing.append(f"seccomp ({exc})")
    config = dict(config, status_fd=status_write, main=f"{policy.WORKDIR}/main.py")
    if root:
        config.update(uid=SANDBOX_UID, gid=SANDBOX_UID)
        if cgroup is not None:
            config["cgroup_fd"] = cgroup.open_procs()
            fds.append(int(config["cgroup_fd"]))  # type: ignore[call-overload]
    else:
        limits = dict(config["limits"])  # type: ignore[call-overload]
        limits["RLIMIT_NPROC"] = (MAX_PROCESSES, MAX_PROCESSES)
        config["limits"] = limits
        protections.append(f"process limit: RLIMIT_NPROC {MAX_PROCESSES} in the run's own user namespace")
    config["fd_ceiling"] = max(fds) + 1  # the prelude closes every passed descriptor, however high its number
    argv = [str(_bwrap()), "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
    if root:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--cap-drop", "ALL"]
        if _bwrap_supports("--disable-userns"):
            argv += ["--disable-userns"]
    argv += view.bwrap_args()
    argv += ["--perms", "0777", "--size", str(WORKSPACE_BYTES), "--tmpfs", policy.WORKDIR,
             "--perms", "0644", "--file", str(fds[1]), f"{policy.WORKDIR}/main.py"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", policy.WORKDIR, "--", view.interpreter, "-I", "-S", "-B", "-c", _prelude_source(),
             json.dumps(config)]
    try:
        outcome = execute(argv, env=_CHILD_ENV, stdin=stdin, pass_fds=tuple(fds), timeout_s=timeout_s,
                          max_output=max_output, status_read=status_read, close_after_start=fds)
    finally:
        if cgroup is not None:
            cgroup.kill_all_and_remove()
    status = outcome.status
    if not status and not outcome.timed_out and outcome.stderr.lstrip().startswith("bwrap:"):
        return None
    if "refused" in status:
        raise SandboxUnavailable(f"sandbox refused: {status['refused']}")
    returncode = outcome.returncode
    if returncode is not None and returncode > 128:  # bubblewrap reports death by signal N as 128 + N
        returncode = -(returncode - 128)
    return _result(outcome, returncode, protections + list(status.get("applied", [])),
                   missing + list(status.get("missing", [])))


def _run_direct(code: str, view: policy.FilesystemView, config: dict[str, object], timeout_s: float,
                max_output: int, stdin: str) -> SandboxResult:
    """Weak mode without bubblewrap: Landlock, limits, a process limit and the audit hook, on a host temp dir."""
    root = os.geteuid() == 0
    if root and not _usable_by_others(view):
        # Root's own processes are every process: code run as root could kill or read them all.
        raise SandboxUnavailable(
            "sandbox refused: even weak mode drops root, but uid 65534 cannot read the interpreter at "
            f"{view.interpreter} (install bubblewrap, or use a Python installed where other users can read it)")
    cgroup = policy.PidsCgroup.create(MAX_PROCESSES) if root else None
    with tempfile.TemporaryDirectory(prefix="maestro-sandbox-") as workdir:
        if root:
            os.chown(workdir, SANDBOX_UID, SANDBOX_UID)
        (Path(workdir) / "main.py").write_text(code, encoding="utf-8")
        rules = {kind: [workdir if p == policy.WORKDIR else p for p in paths]
                 for kind, paths in view.landlock.items()}
        status_read, status_write = os.pipe()
        fds = [status_write]
        run_config = dict(config, landlock=rules, status_fd=status_write, main="main.py")
        if root:
            run_config.update(uid=SANDBOX_UID, gid=SANDBOX_UID)
        if cgroup is not None:
            run_config["cgroup_fd"] = cgroup.open_procs()
            fds.append(int(run_config["cgroup_fd"]))  # type: ignore[call-overload]
        elif not root:  # without a user namespace the count is all of this user's processes, so add ours
            limits = dict(config["limits"])  # type: ignore[call-overload]
            allowed = _processes_of(os.getuid()) + MAX_PROCESSES
            limits["RLIMIT_NPROC"] = (allowed, allowed)
            run_config["limits"] = limits
        run_config["fd_ceiling"] = max(fds) + 1
        env = dict(_CHILD_ENV, HOME=workdir, TMPDIR=workdir)
        argv = [view.interpreter, "-I", "-S", "-B", "-c", _prelude_source(), json.dumps(run_config)]
        try:
            outcome = execute(argv, env=env, stdin=stdin, pass_fds=tuple(fds), timeout_s=timeout_s,
                              max_output=max_output, status_read=status_read, close_after_start=fds, cwd=workdir)
        finally:
            if cgroup is not None:
                cgroup.kill_all_and_remove()
    status = outcome.status
    missing = ["filesystem view, pid and network namespaces, seccomp (no bubblewrap)"]
    if root and cgroup is None:
        missing.append("process limit (no writable pids cgroup)")
    return _result(outcome, outcome.returncode, ["own session (killed as a group at the end)"]
                   + list(status.get("applied", [])), missing + list(status.get("missing", [])))


def _usable_by_others(view: policy.FilesystemView) -> bool:
    """Whether a user with no relation to the files may traverse to and read every path the view binds."""
    for source in view.sources():
        path = Path(source)
        for ancestor in reversed(path.parents):
            if not ancestor.stat().st_mode & stat.S_IXOTH:
                return False
        if not path.stat().st_mode & stat.S_IROTH:
            return False
    return True


def _processes_of(uid: int) -> int:
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            continue
    return count


def _result(outcome: Outcome, returncode: int | None, protections: list[str],
            missing: list[str]) -> SandboxResult:
    cpu_killed = returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not outcome.timed_out
    return SandboxResult(stdout=outcome.stdout, stderr=outcome.stderr, returncode=returncode,
                         timed_out=outcome.timed_out or cpu_killed, latency_ms=outcome.elapsed_ms,
                         protections=tuple(protections), missing=tuple(missing),
                         stopped_by=stopped_by(returncode, outcome.stderr, outcome.timed_out, cpu_killed))
