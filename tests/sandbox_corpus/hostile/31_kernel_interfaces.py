# Attempts: reach kernel interfaces a computation never needs: bpf, keyctl, perf_event_open, io_uring, memfd.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
calls = {"bpf": (321, 0, 0, 0), "keyctl": (250, 0, 0, 0), "perf_event_open": (298, 0, 0, 0),
         "io_uring_setup": (425, 8, 0, 0), "memfd_create": (319, ctypes.c_char_p(b"x"), 0, 0)}
opened = []
for name, (number, *args) in calls.items():
    rc = libc.syscall(number, *args)
    print(name, rc, os.strerror(ctypes.get_errno()))
    if rc >= 0:
        opened.append(name)
if not opened:
    raise PermissionError(1, "Operation not permitted: every kernel interface was refused")
