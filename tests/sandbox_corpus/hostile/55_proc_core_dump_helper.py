# Attempts: reach the host's core-dump helper (a pipe core_pattern runs it as root outside): become dumpable, crash.
# must-not-print: made dumpable
import ctypes
import os
import signal

PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
libc = ctypes.CDLL(None, use_errno=True)
# RLIMIT_CORE 0 stops a core file but not a pipe helper; the uid change left the process non-dumpable.
if libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0:
    print("made dumpable:", libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), flush=True)
else:
    print("PR_SET_DUMPABLE refused:", os.strerror(ctypes.get_errno()), flush=True)
os.kill(os.getpid(), signal.SIGSEGV)  # a core dump would go to the helper now
