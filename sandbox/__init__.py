"""Running untrusted Python (written by an expert, or read from an image) in a sandbox the kernel enforces.

Nothing here depends on state the user's code can reach. Each run gets, in this order:

* a **filesystem view** built by bubblewrap in a fresh mount namespace: only the interpreter, its standard
  library, the virtualenv's site-packages, the system library directories and ``/dev/{null,zero,random,urandom}``
  exist, all read-only; ``/sandbox`` (the working directory, ``HOME`` and ``TMPDIR``) is a new tmpfs capped at
  64 MiB, ``noexec`` as root. No ``/proc``, ``/etc``, home, repository or data directory exists inside;
* **pid, network, ipc and uts namespaces**: the program is alone (no other pids to signal, no interface but a
  down loopback), and when it exits or times out the namespace's init dies and the kernel kills every process
  left, daemons included;
* a **seccomp filter** (compiled by libseccomp): sockets of every family, ptrace, mount, unshare/setns and clone
  with namespace flags, bpf, keyrings, modules, io_uring, memfd, clock changes, modify_ldt, vmsplice, sysfs and
  memory made executable (W^X) answer EPERM; no new privileges;
* an **unprivileged user**: run as root, the prelude drops to uid/gid 65534 with no groups and no capabilities;
  otherwise bubblewrap's user namespace maps the caller's own uid;
* **a cgroup for the run** (``sandbox.cgroups``; v1 or v2) holding every process of it: ``memory_mb`` in total
  with swap off, ``cpu_s`` CPU seconds in total at most one core's worth of time, at most 64 processes; the parent
  watches its counters and ends the run when it reaches a limit, reads the kernel's account of the run (CPU
  seconds, peak memory) and kills and removes it at the end; cgroups that a killed app left are swept at start.
  Without a memory controller, processes x ``RLIMIT_AS`` is set to fit ``memory_mb``; without root,
  ``RLIMIT_NPROC`` counted inside the run's own user namespace caps the processes;
* **Landlock** rules mirroring the view (read-only paths, read-write ``/sandbox``, and no right to execute
  anything: once the interpreter runs, no ``execve`` succeeds, ``ld.so /sandbox/x`` included), a second fence
  should the view ever be wrong;
* **resource limits** per process: CPU seconds, address space, file size, open files, no core files; output is
  cut at ``max_output`` characters while it is read, and a wall-clock timeout kills the tree;
* the Python **audit hook**, a first line only: it turns the common mistakes (subprocess, sockets, ctypes) into
  clear messages, and nothing relies on it.

Libraries: bubblewrap (Debian ``bubblewrap``; the namespace and mount tool Flatpak relies on, maintained by the
containers project) builds the view and namespaces, rather than our own mount code; ``pyseccomp`` (pure-Python
ctypes binding, API-compatible with libseccomp's own) drives libseccomp (Debian ``libseccomp2``, which apt itself
depends on), so the BPF program comes from the reference compiler; ``landlock`` (pure Python, MIT) wraps the
three Landlock system calls. Each is small and has no compiled part of its own.

Which rule stopped a program (``stopped_by``) comes from trusted accounts only, never from what the program prints
(see ``sandbox.process``).

If a layer is missing (no bubblewrap, a kernel without user namespaces, Landlock or seccomp, no pids cgroup as
root) the run is refused with one line saying what is missing, unless the operator opts in to a weaker mode with
``MAESTRO_SANDBOX=weak`` (or ``maestro sandbox run --weak``); the result then lists what was left out. Never
silently weaker. The data directory is never bound into the view; a run whose view would overlap it is refused.
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

from sandbox import cgroups, launch, policy
from sandbox.launch import MAX_PROCESSES, SANDBOX_UID, Budget
from sandbox.result import SandboxResult, SandboxUnavailable

__all__ = ["MAX_PROCESSES", "SANDBOX_UID", "SandboxResult", "SandboxUnavailable", "machine_report", "run_python",
           "sandbox_mode"]

MODE_ENV = "MAESTRO_SANDBOX"
FILE_BYTES = 16 * 1024 * 1024
OPEN_FILES = 64


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
    # RLIMIT_AS and the process cap are fitted to the run's cgroup by ``launch`` (see ``Budget.fit``).
    limits = {"RLIMIT_CPU": (cpu_s, cpu_s + 1), "RLIMIT_FSIZE": (FILE_BYTES,) * 2,
              "RLIMIT_NOFILE": (OPEN_FILES,) * 2, "RLIMIT_CORE": (0, 0)}
    budget = Budget(cpu_s=cpu_s, memory_mb=memory_mb, timeout_s=timeout_s, max_output=max_output)
    config: dict[str, object] = {"strict": mode == "strict", "limits": limits, "audit_hook": audit_hook,
                                 "landlock": view.landlock, "site_dirs": view.site_dirs}
    bwrap = _bwrap()
    if bwrap is not None:
        result = launch.in_bubblewrap(bwrap, code, view, config, budget, stdin)
        if result is not None or mode == "strict":
            if result is None:
                raise SandboxUnavailable("sandbox refused: bubblewrap could not create the namespaces")
            result.missing = tuple(missing) + result.missing
            result.mode = mode
            return result
        missing.append("namespaces (bubblewrap could not create them)")
    result = launch.direct(code, view, config, budget, stdin)
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
    noexec = launch._noexec_prefix() is not None
    rows.append(("noexec /sandbox", noexec, "a noexec tmpfs in a private mount namespace (util-linux unshare)" if noexec
                 else "needs root and util-linux unshare: a library written to /sandbox could be loaded"))
    found = cgroups.layout()
    fallback = Budget(cpu_s=5, memory_mb=512, timeout_s=10, max_output=0).fit(False)
    for controller, what, without in (
            ("memory", "the run's memory in total (memory_mb, swap off)",
             f"processes x RLIMIT_AS are set to fit memory_mb (512 MiB: {fallback.processes} processes x "
             f"{fallback.process_memory_mb} MiB)"),
            ("cpu", f"a CPU quota of {cgroups.CPU_CORES:g} core per run", "RLIMIT_CPU per process only"),
            ("cpuacct", "the run's CPU seconds in total (cpu_s)", "RLIMIT_CPU per process only"),
            ("pids", f"at most {MAX_PROCESSES} processes per run",
             "RLIMIT_NPROC inside the run's user namespace" if os.geteuid() else "strict mode refuses as root")):
        if found.has(controller):
            rows.append((f"{controller} cgroup", True, f"v{found.version} {found.parents[controller]}: {what}"))
        else:
            rows.append((f"{controller} cgroup", False, f"{found.problems.get(controller, 'not usable')}; "
                                                        f"without it: {without}"))
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
    if os.geteuid() == 0 and not cgroups.layout().has("pids"):
        missing.append("a writable pids cgroup (needed as root for the process limit)")
    return missing


@cache
def _bwrap() -> str | None:
    return shutil.which("bwrap") or (("/usr/bin/bwrap") if os.access("/usr/bin/bwrap", os.X_OK) else None)


@cache
def _landlock_abi() -> int:
    try:
        from landlock.plumbing import landlock_abi_version

        return int(landlock_abi_version())
    except Exception:  # the library raises its own errors on kernels without Landlock
        return 0
