# Attempts: mount a tmpfs and bind-mount the root over the work dir to change what the sandbox sees.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
os.mkdir("mnt")
if libc.mount(b"none", b"mnt", b"tmpfs", 0, None) != 0 and libc.mount(b"/", b"mnt", None, 4096, None) != 0:
    raise OSError(ctypes.get_errno(), f"mount failed: {os.strerror(ctypes.get_errno())}")
