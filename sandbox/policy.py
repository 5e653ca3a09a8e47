"""What the code sandbox lets a program see and call: the filesystem view, the system-call filter, the pids cgroup.

``sandbox`` assembles a run from these pieces. The filesystem view is built by bubblewrap from an empty
tmpfs: only the interpreter, its standard library, the virtualenv's site-packages, the system library
directories and four device nodes are bound in, read-only; ``/sandbox`` is a fresh size-limited tmpfs. Nothing
else of the host exists inside (no ``/proc``, ``/etc``, home or data directories, no repository). The same paths
become the Landlock rules the prelude applies inside, so a mistake in one layer is still caught by the other;
Landlock grants no EXECUTE right at all, so once the interpreter runs nothing more can be executed (no
``execve`` of the interpreter, of the loader, or of ``ld.so /sandbox/x``).
The seccomp program is compiled by libseccomp (through ``pyseccomp``) in the parent and loaded by bubblewrap
just before the interpreter starts.
"""

from __future__ import annotations

import errno
import os
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

WORKDIR = "/sandbox"
DEVICES_RW = ("/dev/null", "/dev/zero")
DEVICES_RO = ("/dev/urandom", "/dev/random")

# System calls a computation never needs and that reach beyond the process: debugging other processes, mounts
# and namespaces, kernel keyrings and modules, BPF, raw handles, io_uring (which bypasses this filter for the
# operations it queues), clocks, and sockets of every family (the network namespace is empty anyway). The last
# lines are calls no computation needs and that each held kernel bugs: the x86 LDT (modify_ldt), page splicing
# into pipes (vmsplice), obsolete or NUMA-placement calls (sysfs, ustat, remap_file_pages, the page migration and
# memory-policy calls) and acting on other processes' memory (process_madvise).
DENIED_SYSCALLS = (
    "socket", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "quotactl_fd",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init", "vhangup", "uselib",
    "iopl", "ioperm", "personality", "clock_settime", "clock_adjtime", "settimeofday", "adjtimex",
    "sethostname", "setdomainname", "memfd_create", "memfd_secret",
    "modify_ldt", "vmsplice", "sysfs", "ustat", "remap_file_pages", "move_pages", "migrate_pages", "mbind",
    "set_mempolicy", "set_mempolicy_home_node", "process_madvise", "vm86", "vm86old", "_sysctl", "nfsservctl",
    "create_module", "get_kernel_syms", "query_module",
)
# clone() flags that would create namespaces; clone3 hides its flags in memory, so it answers ENOSYS and the C
# library falls back to clone, where the flags can be checked.
_CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
                          0x00000080)
_PR_SET_PDEATHSIG = 1
# The uid change leaves the program non-dumpable; made dumpable again, a crash would start the host's core-dump
# helper where core_pattern is a pipe (as root, outside every namespace; RLIMIT_CORE 0 does not stop a pipe).
_PR_SET_DUMPABLE = 4
_TTY_INJECTION_IOCTLS = (0x5412, 0x541C)  # TIOCSTI, TIOCLINUX
# Memory made executable after the fact (W^X): no mprotect to PROT_EXEC, no anonymous executable mapping. Code
# comes only from files the loader maps (the read-only view; /sandbox is noexec as root), never from bytes the
# program wrote into memory. Python, numpy and the loader never need it; a JIT (numba) would not work.
# A file mapping is no exception: a private copy of a library mapped writable and executable, a shared executable
# mapping of /dev/zero (aliased writable by mremap), and System V shared memory attached with SHM_EXEC each took
# shellcode (hostile program 50). The loader maps code private and never writable at once.
_PROT_WRITE, _PROT_EXEC, _MAP_SHARED, _MAP_ANONYMOUS, _SHM_EXEC = 0x2, 0x4, 0x1, 0x20, 0o100000


@dataclass
class FilesystemView:
    """Host paths bound read-only into the view (at the same place) and the Landlock rules that mirror them."""

    interpreter: str  # the path the child is started with (a venv's bin/python keeps its site-packages)
    binds: list[tuple[str, str]] = field(default_factory=list)  # (host source, path inside)
    symlinks: list[tuple[str, str]] = field(default_factory=list)  # (target, path inside)
    landlock: dict[str, list[str]] = field(default_factory=dict)
    site_dirs: list[str] = field(default_factory=list)  # put on sys.path by the prelude (the child runs -S)

    def sources(self) -> list[str]:
        return [source for source, _ in self.binds]

    def bwrap_args(self) -> list[str]:
        """Mount arguments: parents made traversable (0755), binds, symlinks, devices, the tmpfs work dir."""
        args: list[str] = []
        parents = sorted({str(p) for _, inside in self.binds for p in Path(inside).parents if str(p) != "/"}
                         | {"/dev"}, key=lambda p: (p.count("/"), p))
        for parent in parents:
            args += ["--perms", "0755", "--dir", parent]
        for source, inside in self.binds:
            args += ["--ro-bind", source, inside]
        for target, inside in self.symlinks:
            args += ["--symlink", target, inside]
        for device in DEVICES_RW + DEVICES_RO:
            args += ["--dev-bind", device, device]
        return args


def _without_nested(paths: set[str]) -> list[str]:
    """Drop paths that lie inside another path of the set (the outer bind already shows them)."""
    ordered = sorted(paths)
    kept: list[str] = []
    for path in ordered:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def _system_library_dirs() -> tuple[list[str], list[tuple[str, str]]]:
    """The dynamic loader's directories (real paths) and the symlinks that lead to them (merged /usr)."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    candidates = ["/lib64", "/usr/lib64", "/lib32", "/usr/lib32"]
    if multiarch:
        candidates += [f"/lib/{multiarch}", f"/usr/lib/{multiarch}"]
    dirs: set[str] = set()
    links: dict[str, str] = {}
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if not os.path.isdir(real):
            continue
        dirs.add(real)
        for ancestor in [Path(candidate), *Path(candidate).parents]:
            if ancestor.is_symlink():
                links[str(ancestor)] = os.readlink(ancestor)
    return _without_nested(dirs), sorted((target, path) for path, target in links.items())


def filesystem_view() -> FilesystemView:
    """The interpreter, its libraries and packages: the only host paths the child can see."""
    interpreter = sys.executable
    view = FilesystemView(interpreter=interpreter)
    view.binds.append((os.path.realpath(interpreter), interpreter))
    venv_cfg = Path(interpreter).parent.parent / "pyvenv.cfg"
    read_files = [str(venv_cfg)] if venv_cfg.is_file() else []
    if venv_cfg.is_file():
        view.binds.append((str(venv_cfg), str(venv_cfg)))
    paths = sysconfig.get_paths()
    python_dirs = {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                   if os.path.isdir(paths[key])}
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libpython = Path(sysconfig.get_config_var("LIBDIR") or "") / (sysconfig.get_config_var("INSTSONAME") or "")
        if libpython.is_file():
            read_files.append(str(libpython))
            view.binds.append((str(libpython), str(libpython)))
    system_dirs, symlinks = _system_library_dirs()
    library_dirs = _without_nested(set(system_dirs))
    library_dirs = [d for d in library_dirs if not any(d == p or d.startswith(p + "/") for p in python_dirs)]
    python_dirs_list = _without_nested(python_dirs)
    for path in python_dirs_list + library_dirs:
        view.binds.append((path, path))
    if os.path.isfile("/etc/ld.so.cache"):
        read_files.append("/etc/ld.so.cache")
        view.binds.append(("/etc/ld.so.cache", "/etc/ld.so.cache"))
    view.symlinks = symlinks
    # Real paths: only those are bound into the view (a venv reached through a symlink is bound at its target).
    view.site_dirs = list(dict.fromkeys(os.path.realpath(paths[key]) for key in ("purelib", "platlib")
                                        if os.path.isdir(paths[key])))
    # No EXECUTE anywhere: the interpreter is already running when the rules apply, and Landlock's EXECUTE covers
    # execve of a program and of its ELF loader, so no program (not even ``ld.so /sandbox/x``) starts after it.
    view.landlock = {"read_dirs": python_dirs_list + library_dirs,
                     "read_files": [*read_files, interpreter, *DEVICES_RO],
                     "rw_files": list(DEVICES_RW), "rw_dirs": [WORKDIR]}
    return view


def overlapping(view_sources: list[str], hidden: list[Path]) -> str | None:
    """The first hidden path (a data directory) that a bind would expose, or that contains a bind."""
    for secret in hidden:
        secret_real = os.path.realpath(secret)
        for source in view_sources:
            inside = secret_real == source or secret_real.startswith(source.rstrip("/") + "/")
            contains = source.startswith(secret_real.rstrip("/") + "/")
            if inside or contains:
                return f"{secret} overlaps the sandbox's read-only path {source}"
    return None


@cache
def seccomp_program() -> bytes:
    """The compiled BPF filter (default allow, the calls above answer EPERM). Raises OSError/RuntimeError."""
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    denied = seccomp.ERRNO(errno.EPERM)
    # Another ABI's calls (x32 numbers, int 0x80) would bypass the rules below: refused too, with EPERM rather than
    # libseccomp's default kill, so that the filter never kills and a death by SIGSYS is never its doing.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, denied)
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(denied, name)
        except (OSError, ValueError):
            continue  # not a system call on this architecture
    for flag in _CLONE_NAMESPACE_FLAGS:
        rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for option in (_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE):
        rules.add_rule(denied, "prctl", seccomp.Arg(0, seccomp.EQ, option))
    for request in _TTY_INJECTION_IOCTLS:
        rules.add_rule(denied, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    for name in ("mprotect", "pkey_mprotect"):
        rules.add_rule(denied, name, seccomp.Arg(2, seccomp.MASKED_EQ, _PROT_EXEC, _PROT_EXEC))
    writable_code = _PROT_WRITE | _PROT_EXEC
    rules.add_rule(denied, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, writable_code, writable_code))
    for flag in (_MAP_ANONYMOUS, _MAP_SHARED):
        rules.add_rule(denied, "mmap", seccomp.Arg(2, seccomp.MASKED_EQ, _PROT_EXEC, _PROT_EXEC),
                       seccomp.Arg(3, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(denied, "shmat", seccomp.Arg(2, seccomp.MASKED_EQ, _SHM_EXEC, _SHM_EXEC))
    with tempfile.TemporaryFile() as compiled:
        rules.export_bpf(compiled)
        compiled.seek(0)
        return compiled.read()
