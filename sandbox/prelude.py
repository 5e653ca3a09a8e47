"""The trusted first steps of a sandboxed run, executed by the sandbox's own interpreter before the user's code.

``sandbox`` passes this file's source to ``python -I -S -c`` inside the bubblewrap view, with a JSON config as
``argv[1]``. It joins the run's cgroup (memory, CPU and process limits for the whole run), drops root for an unused uid, lowers the resource limits, restricts
the filesystem with Landlock, installs the audit hook and reports what it applied on the status descriptor; then
it closes every other descriptor and runs ``main.py`` in fresh globals. Everything it sets is kernel state the
user's code cannot undo (limits only go down, Landlock and seccomp only tighten, the uid has no capabilities); the
audit hook is the one exception and is only there for clearer messages. It imports nothing but the standard
library and ``landlock``: the project's own packages are not in the sandbox's view.
"""

import json
import os
import resource
import sys

REFUSED_EXIT = 125  # the sandbox could not be set up as required: no user code ran

# The audit hook is a courtesy (a clear message for the common mistakes); the kernel layers are the guarantee.
_REFUSED_EVENTS = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
                   "subprocess.Popen", "pty.spawn", "socket.__new__", "socket.connect", "socket.bind",
                   "socket.getaddrinfo", "ctypes.")  # every ctypes event: _ctypes loads by hand too
_REFUSED_IMPORTS = frozenset({"ctypes", "_ctypes"})


def _audit(event: str, args: tuple) -> None:
    if event == "import" and args and str(args[0]).partition(".")[0] in _REFUSED_IMPORTS:
        raise ImportError(f"sandbox: importing {args[0]} is not allowed")
    if event.startswith(_REFUSED_EVENTS):
        raise PermissionError(f"sandbox: {event} is not allowed")


def _refuse(status_fd: int | None, reason: str) -> None:
    if status_fd is not None:
        os.write(status_fd, json.dumps({"refused": reason}).encode())
    sys.stderr.write(f"sandbox refused: {reason}\n")
    sys.stderr.flush()
    os._exit(REFUSED_EXIT)


def _drop_root(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0 or os.getgroups():
        raise PermissionError("the uid did not change")


def _landlock(rules: dict[str, list[str]]) -> int:
    """Restrict this process and its children to the granted paths; returns the Landlock ABI version."""
    from landlock import FSAccess, Ruleset
    from landlock.plumbing import landlock_abi_version

    abi = landlock_abi_version()
    ruleset = Ruleset()
    file_read = FSAccess.READ_FILE
    dir_read = FSAccess.READ_FILE | FSAccess.READ_DIR
    file_write = FSAccess.READ_FILE | FSAccess.WRITE_FILE | (FSAccess.TRUNCATE if abi >= 3 else 0)
    # The working directory gets everything except device, socket and FIFO creation and execution; no rule
    # grants EXECUTE, so nothing can be executed any more (the ruleset handles every right, EXECUTE included).
    workdir = FSAccess.all() & ~(FSAccess.MAKE_CHAR | FSAccess.MAKE_BLOCK | FSAccess.MAKE_SOCK | FSAccess.MAKE_FIFO
                                 | FSAccess.EXECUTE)
    for kind, access in (("read_dirs", dir_read), ("read_files", file_read), ("rw_files", file_write),
                         ("rw_dirs", workdir)):
        for path in rules.get(kind, []):
            if os.path.exists(path):
                ruleset.allow(path, rules=access)
    ruleset.apply()
    os.close(ruleset._fd)  # the library keeps it open; the restriction no longer needs it
    # Leave the user's interpreter as it would start: ctypes comes back only through an import the hook sees.
    for name in [n for n in sys.modules if n.partition(".")[0] in ("landlock", "ctypes", "_ctypes")]:
        del sys.modules[name]
    return abi


def _apply(config: dict) -> tuple[list[str], list[str]]:
    """Apply every layer the config asks for; returns (applied, missing)."""
    applied: list[str] = []
    missing: list[str] = []
    strict = config["strict"]
    status_fd = config.get("status_fd")
    cgroup_fds = config.get("cgroup_fds") or []
    joined = 0
    for cgroup_fd in cgroup_fds:  # one per v1 hierarchy (memory, cpu, cpuacct, pids), one in all for v2
        try:
            os.write(cgroup_fd, b"0")  # "0" moves the writer itself; its children follow
            joined += 1
        except OSError as exc:
            missing.append(f"the run's cgroup ({exc.strerror})")
        os.close(cgroup_fd)
    if cgroup_fds and joined == len(cgroup_fds):
        applied.append(f"joined the run's cgroup ({joined} hierarchies)")
    if os.getuid() == 0 and config.get("uid") is not None:
        try:
            _drop_root(config["uid"], config["gid"])
            applied.append(f"unprivileged user: uid {config['uid']}, no groups, no capabilities")
        except OSError as exc:
            missing.append(f"unprivileged user ({exc})")
    elif os.getuid() != 0:
        applied.append(f"unprivileged user: uid {os.getuid()}")
    for name, (soft, hard) in config["limits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    applied.append("resource limits: " + ", ".join(f"{name[7:].lower()} {soft}" for name, (soft, _)
                                                   in sorted(config["limits"].items())))
    if config.get("landlock"):
        try:
            abi = _landlock(config["landlock"])
            applied.append(f"Landlock filesystem rules (ABI {abi})")
        except Exception as exc:  # the library raises its own error types for old kernels
            missing.append(f"Landlock ({type(exc).__name__}: {exc})")
    if missing and strict:
        _refuse(status_fd, "; ".join(missing) + " (set MAESTRO_SANDBOX=weak to run without them)")
    return applied, missing


def _main() -> None:
    config = json.loads(sys.argv[1])
    # The interpreter starts with -S: site-packages without running any .pth file, and quit()/help() by hand.
    sys.path.extend(path for path in config.get("site_dirs", []) if path not in sys.path)
    import site

    site.setquit()
    site.sethelper()
    status_fd = config.get("status_fd")
    applied, missing = _apply(config)
    if config.get("audit_hook", True):
        sys.addaudithook(_audit)
        applied.append("audit hook (first line only)")
    if status_fd is not None:
        os.write(status_fd, json.dumps({"applied": applied, "missing": missing}).encode())
    # Up to the highest descriptor the app passed, not only the lowered RLIMIT_NOFILE: in a busy app the status
    # pipe can be number 65, above a limit of 64, and code must not reach it.
    os.closerange(3, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], int(config.get("fd_ceiling", 0))))
    with open(config["main"], "rb") as handle:
        source = handle.read()
    sys.argv = [config["main"]]
    namespace = {"__name__": "__main__", "__file__": config["main"], "__builtins__": __builtins__}
    code = compile(source, config["main"], "exec")
    del config, applied, missing, source
    exec(code, namespace)


if __name__ == "__main__":
    _main()
