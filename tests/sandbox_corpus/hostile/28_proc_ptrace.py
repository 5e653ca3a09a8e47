# Attempts: ptrace: trace itself and attach to a child (the first step of injecting code into another process).
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
child = os.fork()
if child == 0:
    os.pause()
rc = libc.ptrace(16, child, None, None)  # PTRACE_ATTACH
os.kill(child, 9)
if rc != 0:
    raise OSError(ctypes.get_errno(), f"ptrace attach failed: {os.strerror(ctypes.get_errno())}")
