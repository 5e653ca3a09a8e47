# Attempts: fork with the audit hook on (no os.fork event: _posixsubprocess runs a preexec_fn), 4 children x 200 MiB.
# timeout: 15
import _posixsubprocess
import os
import time

EACH = 200 * 2**20  # 800 MiB in all: more than the run's 512, so the run's cgroup must end it


def hold() -> None:
    block = bytearray(EACH)
    for offset in range(0, EACH, 4096):
        block[offset] = 1
    time.sleep(8)
    os._exit(0)


children = []
for _ in range(4):
    errors_read, errors_write = os.pipe()
    children.append(_posixsubprocess.fork_exec(
        [b"/nonexistent"], [b"/nonexistent"], True, (), None, None, -1, -1, -1, -1, -1, -1, errors_read,
        errors_write, True, False, -1, None, None, None, -1, hold, False))
print("forked", len(children), "children past the audit hook", flush=True)
for child in children:
    os.waitpid(child, 0)
print("all children held their memory")
