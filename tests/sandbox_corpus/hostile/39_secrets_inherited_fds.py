# Attempts: find descriptors inherited from the app (its database, sockets) and read from them.
import os
import stat

found = []
for fd in range(3, 1024):
    try:
        info = os.fstat(fd)
    except OSError:
        continue
    found.append((fd, stat.filemode(info.st_mode)))
if found:
    print("inherited:", found)
    raise SystemExit(0)
raise SystemExit("no descriptor beyond stdin, stdout and stderr")
