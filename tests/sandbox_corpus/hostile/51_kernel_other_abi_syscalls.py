# Attempts: pass the system-call filter under another ABI's numbers (x32: 0x40000000 + n): socket, unshare, ptrace.
# must-not-print: under the x32 ABI succeeded
import ctypes
import os
import platform

if platform.machine() != "x86_64":
    raise SystemExit("the x32 ABI is x86-64 only")
X32 = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)
refused = []
for name, number, args in (("socket", 41, (2, 1, 0)), ("unshare", 272, (0x10000000,)), ("ptrace", 521, (0, 0, 0, 0))):
    if libc.syscall(X32 + number, *args) >= 0:
        print(name, "under the x32 ABI succeeded")
    else:
        refused.append(f"{name}: {os.strerror(ctypes.get_errno())}")
raise PermissionError("refused: " + "; ".join(refused))
