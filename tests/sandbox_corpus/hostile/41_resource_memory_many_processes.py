# Attempts: hold far more than the run's memory in total: 12 processes each touch 384 MiB (under a per-process limit).
# timeout: 15
import os
import time

CHILDREN, EACH, BUDGET = 12, 384 * 2**20, 512 * 2**20
ready_read, ready_write = os.pipe()
for _ in range(CHILDREN):
    if os.fork() == 0:
        os.close(ready_read)
        block = bytearray(EACH)
        for offset in range(0, EACH, 4096):
            block[offset] = 1
        os.write(ready_write, b"x")
        time.sleep(6)  # hold it while the others fill theirs
        os._exit(0)
os.close(ready_write)
held = 0
while held < CHILDREN and (chunk := os.read(ready_read, 64)):
    held += len(chunk)
print(f"{held} processes held {held * EACH // 2**20} MiB at once")
if held * EACH > BUDGET:
    raise SystemExit(0)  # escaped: the run held more than its memory budget
raise MemoryError(f"only {held} of {CHILDREN} processes got their memory")
