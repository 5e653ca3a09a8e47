# Attempts: run a program copied into the writable /sandbox through the dynamic loader (ld.so /sandbox/x), no exec bit.
# must-not-print: GNU C Library
import os
import platform
import shutil

arch = platform.machine()
loaders = [p for p in ("/lib64/ld-linux-x86-64.so.2", f"/lib/{arch}-linux-gnu/ld-linux-{arch}.so.1",
                       "/lib/ld-linux-aarch64.so.1") if os.path.exists(p)]
libcs = [p for p in (f"/lib/{arch}-linux-gnu/libc.so.6", f"/usr/lib/{arch}-linux-gnu/libc.so.6", "/lib64/libc.so.6")
         if os.path.exists(p)]
if not loaders or not libcs:
    raise SystemExit("no loader or libc in the view to try with")
shutil.copy(libcs[0], "x")  # libc.so.6 is itself a program: run, it prints its version banner
os.chmod("x", 0o644)  # not executable: only the loader's own mmap can run it
os.execv(loaders[0], [loaders[0], os.path.abspath("x")])
