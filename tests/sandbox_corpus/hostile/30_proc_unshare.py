# Attempts: unshare a new user namespace (to become root inside it) and clone a child into new namespaces.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
    raise SystemExit(0)
print("unshare:", os.strerror(ctypes.get_errno()))
pid = libc.syscall(56, CLONE_NEWUSER | 17, None, None, None, None)  # raw clone(CLONE_NEWUSER | SIGCHLD)
if pid == 0:
    os._exit(0)
if pid > 0:
    raise SystemExit(0)
raise OSError(ctypes.get_errno(), f"clone into a new user namespace failed: {os.strerror(ctypes.get_errno())}")
