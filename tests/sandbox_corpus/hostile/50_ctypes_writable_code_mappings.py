# Attempts: machine code without mprotect: RWX private copy of a library, /dev/zero mapped RWX or shared RX, SHM_EXEC.
# must-not-print: shellcode returned
import ctypes
import mmap
import os
import platform

if platform.machine() != "x86_64":
    raise SystemExit("this shellcode is x86-64 only")
CODE = b"\xb8\x2a\x00\x00\x00\xc3"  # mov eax, 42; ret
RWX, FAILED = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC, 2**64 - 1
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = libc.shmat.restype = libc.mremap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mremap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int]


def run(how: str, write_at: int | None, run_at: int | None = None) -> bool:
    if write_at in (None, FAILED) or run_at == FAILED:
        print(how, "refused:", os.strerror(ctypes.get_errno()))
        return False
    ctypes.memmove(write_at, CODE, len(CODE))
    print(how, "-> shellcode returned", ctypes.CFUNCTYPE(ctypes.c_int)(run_at or write_at)(), flush=True)
    return True


library = next(p for p in ("/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
                           "/lib64/libc.so.6") if os.path.exists(p))
ran = run("RWX private copy of libc", libc.mmap(None, 4096, RWX, mmap.MAP_PRIVATE, os.open(library, os.O_RDONLY), 0))
zero = os.open("/dev/zero", os.O_RDWR)
ran |= run("RWX private /dev/zero", libc.mmap(None, 4096, RWX, mmap.MAP_PRIVATE, zero, 0))
code = libc.mmap(None, 4096, mmap.PROT_READ | mmap.PROT_EXEC, mmap.MAP_SHARED, zero, 0)
alias = libc.mremap(code, 0, 4096, 1) if code != FAILED else FAILED  # MREMAP_MAYMOVE: a second view, then RW
if alias != FAILED and libc.mprotect(ctypes.c_void_p(alias), 4096, mmap.PROT_READ | mmap.PROT_WRITE) != 0:
    alias = FAILED
ran |= run("shared RX /dev/zero written through an RW alias", alias if code != FAILED else FAILED, code)
segment = libc.shmget(0, 4096, 0o1700)  # IPC_PRIVATE, IPC_CREAT | 0700
ran |= run("System V shared memory attached SHM_EXEC", libc.shmat(segment, None, 0o100000) if segment >= 0 else None)
raise SystemExit("no writable code" if not ran else 0)
