# Attempts: memory that outlives the processes that made it: System V shared memory and message queues, 800 MiB.
# must-not-print: more than the run's memory
import ctypes
import os
import time

SEGMENT, SEGMENTS, BUDGET = 160 * 2**20, 5, 512 * 2**20
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
held = 0
for _ in range(SEGMENTS):
    pid = os.fork()
    if pid == 0:  # creates, fills and detaches a segment, then exits: the segment stays
        segment = libc.shmget(0, SEGMENT, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
        address = libc.shmat(segment, None, 0) if segment >= 0 else None
        if address in (None, 2**64 - 1):
            os._exit(1)
        ctypes.memset(address, 1, SEGMENT)
        libc.shmdt(ctypes.c_void_p(address))
        os._exit(0)
    held += SEGMENT if os.waitpid(pid, 0)[1] == 0 else 0


class Message(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_long), ("text", ctypes.c_char * 8000)]


message = Message(1, b"x" * 8000)
deadline = time.monotonic() + 3
while held < 2 * BUDGET and time.monotonic() < deadline:
    queue = libc.msgget(0, 0o1600)
    if queue < 0:
        break
    while held < 2 * BUDGET and libc.msgsnd(queue, ctypes.byref(message), 8000, 0o4000) == 0:  # IPC_NOWAIT
        held += 8000
print("held", held // 2**20, "MiB in IPC objects:", "more than the run's memory" if held > BUDGET else "within it")
raise SystemExit(1)
