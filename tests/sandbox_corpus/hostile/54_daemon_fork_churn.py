# Attempts: outlast the run's end: 60 processes (6 MiB each) that fork a replacement and die, so every pid keeps changing.
# timeout: 5
import os
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for _ in range(60):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        block = bytearray(6 * 2**20)
        for offset in range(0, len(block), 4096):
            block[offset] = 1
        while True:
            try:
                if os.fork() == 0:
                    continue   # the child carries on the loop
                os._exit(0)    # the parent dies: the pid changes all the time
            except OSError:
                time.sleep(0.001)
time.sleep(60)
