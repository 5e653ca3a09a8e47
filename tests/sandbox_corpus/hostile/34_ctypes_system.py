# Attempts: run a shell through ctypes (libc system and execv), which no Python audit event covers.
import ctypes
import json
import sys

cfg = json.load(sys.stdin)
libc = ctypes.CDLL(None, use_errno=True)
status = libc.system(f"touch {cfg['outside']}/pwned_by_ctypes".encode())
print("system() returned", status)
libc.execv(b"/bin/sh", (ctypes.c_char_p * 3)(b"sh", b"-c", None))
raise OSError(ctypes.get_errno(), "execv of /bin/sh failed")
