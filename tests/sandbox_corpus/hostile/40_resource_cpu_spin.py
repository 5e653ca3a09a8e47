# Attempts: spin the CPU forever (and keep a child spinning) so the run never ends.
# timeout: 3
import os

os.fork()
while True:
    pass
