# Attempts: call modify_ldt, vmsplice and sysfs, which a computation never needs (each has held kernel bugs).
import ctypes
import os
import platform

numbers = {"x86_64": {"modify_ldt": 154, "vmsplice": 278, "sysfs": 139},
           "aarch64": {"vmsplice": 75}}.get(platform.machine(), {})
if not numbers:
    raise SystemExit(f"no system call numbers for {platform.machine()}")


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


libc = ctypes.CDLL(None, use_errno=True)
data = ctypes.create_string_buffer(b"spliced")
read_end, write_end = os.pipe()
iov = IOVec(ctypes.cast(data, ctypes.c_void_p), 7)
ldt = ctypes.create_string_buffer(64)
arguments = {"modify_ldt": (0, ldt, 64), "vmsplice": (write_end, ctypes.byref(iov), 1, 0), "sysfs": (3,)}
allowed = []
for name, number in numbers.items():
    result = libc.syscall(number, *arguments[name])
    print(name, result, os.strerror(ctypes.get_errno()) if result < 0 else "allowed")
    if result >= 0:
        allowed.append(name)
if not allowed:
    raise PermissionError(1, "Operation not permitted: every call was refused")
