"""Starting one sandboxed run: inside bubblewrap (the normal way) or directly (weak mode without bubblewrap).

Both ways share the run's cgroup (``cgroups.RunCgroup``): it is made before the child starts, the prelude joins it
before any user code runs, the parent watches its counters while the child runs (the whole run's CPU seconds and
OOM kills end it at once, however many processes it has), reads the kernel's account at the end, and kills and
removes it. ``sandbox.run_python`` decides the limits; this module only carries them out.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import cast

from sandbox import policy
from sandbox.cgroups import RunCgroup, Usage, dead_owner, layout, owner_tag
from sandbox.process import ProcessOutcome, execute, stderr_hint, stopped_by
from sandbox.result import SandboxResult, SandboxUnavailable

SANDBOX_UID = 65534
MAX_PROCESSES = 64
PROCESS_FLOOR_MB = 128  # address space one interpreter needs (numpy imported: ~100 MiB)
WORKSPACE_BYTES = 64 * 1024 * 1024
_CPU_BEFORE_JOIN_S = 0.25
CHILD_ENV = {"PATH": "/usr/bin:/bin", "HOME": policy.WORKDIR, "TMPDIR": policy.WORKDIR, "LANG": "C.UTF-8",
             "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
             "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass
class Budget:
    """What one run may use in total; ``memory_cgroup`` says whether the kernel counts the whole run's memory."""

    cpu_s: int
    memory_mb: int
    timeout_s: float
    max_output: int
    processes: int = MAX_PROCESSES
    process_memory_mb: int = 0  # RLIMIT_AS of each process
    memory_cgroup: bool = False

    def fit(self, memory_cgroup: bool) -> Budget:
        """With a memory cgroup the kernel counts the run; without, processes x RLIMIT_AS must fit the budget."""
        if memory_cgroup:
            return replace(self, processes=MAX_PROCESSES, process_memory_mb=self.memory_mb, memory_cgroup=True)
        processes = max(1, min(MAX_PROCESSES, self.memory_mb // PROCESS_FLOOR_MB))
        return replace(self, processes=processes, process_memory_mb=self.memory_mb // processes,
                       memory_cgroup=False)

    def describe(self) -> str:
        return (f"memory {self.memory_mb} MiB in total with swap off, {self.cpu_s} CPU s in total at most 1 core, "
                f"process limit {self.processes}")


class _Watch:
    """The run's cgroup while it runs: the limits it reaches end the run, and its account is read at the end."""

    def __init__(self, cgroup: RunCgroup | None, budget: Budget) -> None:
        self.cgroup, self.budget = cgroup, budget
        self.usage = Usage()

    def join_fds(self) -> list[int]:
        return [os.open(path, os.O_WRONLY) for path in self.cgroup.procs_files()] if self.cgroup else []

    def monitor(self) -> str | None:
        if self.cgroup is None:
            return None
        usage = self.cgroup.usage()
        if usage.oom_kills:
            return f"memory limit (the run's {self.budget.memory_mb} MiB, all its processes together)"
        if usage.cpu_s is not None and usage.cpu_s > self.budget.cpu_s:
            return f"CPU time limit ({usage.cpu_s:.1f} CPU s over all the run's processes)"
        return None

    def stop(self) -> None:
        if self.cgroup is not None:
            self.usage = self.cgroup.usage()
            self.cgroup.kill_all()

    def finish(self) -> None:
        if self.cgroup is not None:
            final = self.cgroup.usage()
            self.usage = final if final.cpu_s is not None or final.peak_memory_bytes else self.usage
            self.cgroup.kill_all_and_remove()


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


def _prepare(budget: Budget, config: dict[str, object]) -> tuple[RunCgroup | None, Budget, dict[str, object],
                                                                 list[str]]:
    """The run's cgroup, the budget fitted to what it can count, the limits that follow, and what they are."""
    root = os.geteuid() == 0
    budget = budget.fit(root and layout().has("memory"))
    cgroup = RunCgroup.create(budget.memory_mb, budget.processes) if root else None
    if cgroup is None or "memory" not in cgroup.dirs:
        budget = budget.fit(False)
    limits = dict(config["limits"])  # type: ignore[call-overload]
    limits["RLIMIT_AS"] = (budget.process_memory_mb * 2**20,) * 2
    # A missing memory or cpu controller is a weaker bound, not a missing one: it is said here, and by
    # ``maestro sandbox check``, rather than making strict mode refuse.
    bounds = [f"the run's cgroup (v{cgroup.version}): {budget.describe()}"] if cgroup else []
    if cgroup is None or "cpu" not in cgroup.dirs:
        bounds.append(f"CPU: no cpu cgroup, so RLIMIT_CPU {budget.cpu_s} s per process and the wall-clock timeout")
    if not budget.memory_cgroup:
        bounds.append(f"memory: no memory cgroup, so {budget.processes} processes x {budget.process_memory_mb} "
                      f"MiB of address space each fit the {budget.memory_mb} MiB budget")
    return cgroup, budget, dict(config, limits=limits), bounds


def in_bubblewrap(bwrap: str, code: str, view: policy.FilesystemView, config: dict[str, object],
                  budget: Budget, stdin: str) -> SandboxResult | None:
    """One run inside bubblewrap; None when bubblewrap itself could not build the namespaces."""
    root = os.geteuid() == 0
    prefix = _noexec_prefix()
    protections = [f"filesystem view: mount namespace with {len(view.binds)} read-only paths, "
                   f"/sandbox tmpfs {WORKSPACE_BYTES // 2**20} MiB" + (", noexec" if prefix else ""),
                   "pid namespace (every process killed when the run ends)",
                   "network namespace (no interfaces)", "ipc and uts namespaces"]
    missing: list[str] = []
    cgroup, budget, config, bounds = _prepare(budget, config)
    if root and cgroup is None:  # as root the cgroup is the only process limit (no user namespace counts them)
        if config["strict"]:
            raise SandboxUnavailable("sandbox refused: the run's cgroup could not be made (no process limit as root)")
        missing.append("process limit (the run's cgroup could not be made)")
    protections += bounds
    watch = _Watch(cgroup, budget)
    status_read, status_write = os.pipe()
    fds = [status_write, _temp_fd(code.encode("utf-8"))]
    seccomp_fd: int | None = None
    try:
        program_fd = _temp_fd(policy.seccomp_program())
        fds.append(program_fd)
        seccomp_fd = program_fd
        protections.append(f"seccomp filter ({len(policy.DENIED_SYSCALLS)} system calls and namespace clones "
                           "refused, no new privileges)")
    except (OSError, RuntimeError) as exc:
        missing.append(f"seccomp ({exc})")
    config = dict(config, status_fd=status_write, main=f"{policy.WORKDIR}/main.py")
    if root:
        config.update(uid=SANDBOX_UID, gid=SANDBOX_UID)
        config["cgroup_fds"] = watch.join_fds()
        fds += config["cgroup_fds"]  # type: ignore[arg-type]
    else:
        limits = dict(config["limits"])  # type: ignore[call-overload]
        limits["RLIMIT_NPROC"] = (budget.processes, budget.processes)
        config["limits"] = limits
        protections.append(f"process limit: RLIMIT_NPROC {budget.processes} in the run's own user namespace")
    config["fd_ceiling"] = max(fds) + 1  # the prelude closes every passed descriptor, however high its number
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--hostname", "sandbox"]
    if not (cgroup is not None and layout().beside_own):
        argv.append("--unshare-cgroup-try")
    if root:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        argv += ["--unshare-user", "--cap-drop", "ALL"]
        if _bwrap_supports(bwrap, "--disable-userns"):
            argv += ["--disable-userns"]
    argv += view.bwrap_args()
    workspace = tempfile.mkdtemp(prefix=f"{_WORKSPACE_PREFIX}{owner_tag()}-") if prefix else None
    if workspace is not None and prefix is not None:  # the noexec tmpfs is mounted on it by the prefix, privately
        argv = [*prefix, f"noexec,nosuid,nodev,size={WORKSPACE_BYTES},mode=0777", workspace, *argv]
        argv += ["--bind", workspace, policy.WORKDIR]
    else:
        argv += ["--perms", "0777", "--size", str(WORKSPACE_BYTES), "--tmpfs", policy.WORKDIR]
    argv += ["--perms", "0644", "--file", str(fds[1]), f"{policy.WORKDIR}/main.py"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", policy.WORKDIR, "--", view.interpreter, "-I", "-S", "-B", "-c", _prelude_source(),
             json.dumps(config)]
    try:
        outcome = execute(argv, env=CHILD_ENV, stdin=stdin, pass_fds=tuple(fds), timeout_s=budget.timeout_s,
                          max_output=budget.max_output, status_read=status_read, close_after_start=fds,
                          monitor=watch.monitor, on_stop=watch.stop)
    finally:
        watch.finish()
        if workspace is not None:
            os.rmdir(workspace)  # the tmpfs lived only in the run's private mount namespace: this is empty
    status = outcome.status
    if not status and not outcome.timed_out and outcome.stderr.lstrip().startswith("bwrap:"):
        return None
    if "refused" in status:
        raise SandboxUnavailable(f"sandbox refused: {status['refused']}")
    returncode = outcome.returncode
    if returncode is not None and returncode > 128:  # bubblewrap reports death by signal N as 128 + N
        returncode = -(returncode - 128)
    return _result(outcome, returncode, protections + _status_lines(status, "applied"),
                   missing + _status_lines(status, "missing"), watch)


def direct(code: str, view: policy.FilesystemView, config: dict[str, object], budget: Budget,
           stdin: str) -> SandboxResult:
    """Weak mode without bubblewrap: Landlock, limits, the run's cgroup and the audit hook, on a host temp dir."""
    root = os.geteuid() == 0
    if root and not _usable_by_others(view):
        # Root's own processes are every process: code run as root could kill or read them all.
        raise SandboxUnavailable(
            "sandbox refused: even weak mode drops root, but uid 65534 cannot read the interpreter at "
            f"{view.interpreter} (install bubblewrap, or use a Python installed where other users can read it)")
    cgroup, budget, config, bounds = _prepare(budget, config)
    watch = _Watch(cgroup, budget)
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
        run_config["cgroup_fds"] = watch.join_fds()
        fds += run_config["cgroup_fds"]  # type: ignore[arg-type]
        if not root:  # without a user namespace the count is all of this user's processes, so add ours
            limits = dict(config["limits"])  # type: ignore[call-overload]
            allowed = _processes_of(os.getuid()) + budget.processes
            limits["RLIMIT_NPROC"] = (allowed, allowed)
            run_config["limits"] = limits
        run_config["fd_ceiling"] = max(fds) + 1
        env = dict(CHILD_ENV, HOME=workdir, TMPDIR=workdir)
        argv = [view.interpreter, "-I", "-S", "-B", "-c", _prelude_source(), json.dumps(run_config)]
        try:
            outcome = execute(argv, env=env, stdin=stdin, pass_fds=tuple(fds), timeout_s=budget.timeout_s,
                              max_output=budget.max_output, status_read=status_read, close_after_start=fds,
                              cwd=workdir, monitor=watch.monitor, on_stop=watch.stop)
        finally:
            watch.finish()
    status = outcome.status
    missing = ["filesystem view, pid and network namespaces, seccomp (no bubblewrap)"]
    if root and cgroup is None:
        missing.append("process limit (no writable pids cgroup)")
    return _result(outcome, outcome.returncode, ["own session (killed as a group at the end)", *bounds]
                   + _status_lines(status, "applied"), missing + _status_lines(status, "missing"), watch)


# Run by util-linux's ``unshare --mount`` in a private mount namespace: a noexec tmpfs on the host directory "$2"
# (which bubblewrap then binds as /sandbox, keeping its noexec flag), then bubblewrap itself in the same process.
_NOEXEC_SCRIPT = 'mount -t tmpfs -o "$1" maestro-sandbox "$2" && shift 2 && exec "$@"'


_WORKSPACE_PREFIX = "maestro-sandbox-ws-"


def _status_lines(status: dict[str, object], key: str) -> list[str]:
    # The status is JSON from the prelude, which writes "applied" and "missing" as lists of strings.
    return list(cast("list[str]", status.get(key, [])))


def sweep_workspaces() -> list[str]:
    """Remove the empty mount points that runs of killed apps left in the temp directory (their owner is dead)."""
    removed: list[str] = []
    for entry in Path(tempfile.gettempdir()).glob(f"{_WORKSPACE_PREFIX}*-*-*-*"):
        tag = entry.name[len(_WORKSPACE_PREFIX):]
        if tag.split("-")[0].isdigit() and all(p.isdigit() for p in tag.split("-")[:3]) and dead_owner(tag):
            with contextlib.suppress(OSError):  # not empty, or already gone: not ours to touch
                entry.rmdir()
                removed.append(str(entry))
    return removed


@cache
def _noexec_prefix() -> list[str] | None:
    """The command that gives /sandbox a noexec tmpfs (bubblewrap 0.8 cannot): as root, where a trial mount works.

    noexec is what refuses ``mmap(PROT_EXEC)`` of a file written to /sandbox (a loaded ``.so``); Landlock only
    governs ``execve``. None where it cannot be had; the protections then say "/sandbox tmpfs" without noexec.
    """
    unshare, shell = shutil.which("unshare"), shutil.which("sh")
    if os.geteuid() != 0 or unshare is None or shell is None:
        return None
    prefix = [unshare, "--mount", "--propagation", "private", "--", shell, "-c", _NOEXEC_SCRIPT, "sh"]
    sweep_workspaces()  # once per process, like the cgroups' sweep
    with tempfile.TemporaryDirectory(prefix="maestro-sandbox-probe-") as probe:
        tried = subprocess.run([*prefix, "noexec,nosuid,nodev,size=1m", probe, "true"], capture_output=True,
                               timeout=30)
    return prefix if tried.returncode == 0 else None


@cache
def _bwrap_supports(bwrap: str, option: str) -> bool:
    helped = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    return option in helped.stdout + helped.stderr


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


def _result(outcome: ProcessOutcome, returncode: int | None, protections: list[str], missing: list[str],
            watch: _Watch) -> SandboxResult:
    usage = watch.usage
    # The cgroup counts from the prelude's join on; the interpreter's start before it (well under 0.25 CPU s) is
    # counted by RLIMIT_CPU only, so a genuine SIGXCPU can come with a cgroup account just under the budget.
    cpu_reached = usage.cpu_s is None or usage.cpu_s >= watch.budget.cpu_s - _CPU_BEFORE_JOIN_S
    rule = stopped_by(outcome, returncode, cpu_limit_reached=cpu_reached, oom_kills=usage.oom_kills,
                      forks_refused=usage.forks_refused)
    peak = usage.peak_memory_bytes / 2**20 if usage.peak_memory_bytes is not None else None
    return SandboxResult(stdout=outcome.stdout, stderr=outcome.stderr, returncode=returncode,
                         timed_out=outcome.timed_out or bool(rule and rule.startswith("CPU time limit")),
                         latency_ms=outcome.elapsed_ms, protections=tuple(protections), missing=tuple(missing),
                         stopped_by=rule, hint=None if rule else stderr_hint(returncode, outcome.stderr),
                         cpu_s=usage.cpu_s, peak_memory_mb=peak)
