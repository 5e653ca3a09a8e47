# Attempts: keep 24 processes spinning the CPU until the wall-clock timeout, each under its own CPU-seconds limit.
# timeout: 4
import os

for _ in range(23):
    if os.fork() == 0:
        break
while True:
    pass
