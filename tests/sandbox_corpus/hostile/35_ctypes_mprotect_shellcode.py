# Attempts: machine code: mprotect a buffer executable and run shellcode that creat()s a file outside.
import ctypes
import json
import mmap
import os
import platform
import sys

cfg = json.load(sys.stdin)
if platform.machine() != "x86_64":
    raise SystemExit("this shellcode is x86-64 only")
path = f"{cfg['outside']}/pwned_by_shellcode".encode() + b"\0"
# lea rdi,[rip+13]; mov esi,0644; mov eax,85 (creat); syscall; ret; then the path
code = b"\x48\x8d\x3d\x0d\x00\x00\x00" + b"\xbe\xa4\x01\x00\x00" + b"\xb8\x55\x00\x00\x00" + b"\x0f\x05" + b"\xc3" + path
libc = ctypes.CDLL(None, use_errno=True)
buffer = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
buffer.write(code)
address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
if libc.mprotect(ctypes.c_void_p(address), mmap.PAGESIZE, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
    raise OSError(ctypes.get_errno(), "mprotect failed")
result = ctypes.CFUNCTYPE(ctypes.c_long)(address)()
if result < 0:
    raise OSError(-result, f"creat from shellcode failed: {os.strerror(-result)}")
