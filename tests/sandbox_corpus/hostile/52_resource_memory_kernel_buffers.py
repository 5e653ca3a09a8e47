# Attempts: hold memory in kernel buffers, not in any process: AF_UNIX socket pairs and enlarged pipes, 3 processes.
# must-not-print: more than the run's memory
import fcntl
import os
import socket
import time

PROCESSES, PAIRS, BUDGET = 3, 20, 512 * 2**20


def fill(send: object) -> int:
    held = 0
    try:
        while True:
            held += send(b"x" * 65536)  # type: ignore[operator]
    except (BlockingIOError, OSError):
        return held


report_read, report_write = os.pipe()
for _ in range(PROCESSES):
    if os.fork() == 0:
        os.close(report_read)
        held, kept = 0, []
        for _ in range(PAIRS):
            try:
                for end in socket.socketpair():
                    end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 * 2**20)
                    end.setblocking(False)
                    kept.append(end)
                    held += fill(end.send)
                read_end, write_end = os.pipe()
                kept.append((read_end, write_end))
                with_size = fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 2**20)
                os.set_blocking(write_end, False)
                held += fill(lambda data, fd=write_end, size=with_size: os.write(fd, data[:size]))
            except OSError:
                break
        os.write(report_write, f"{held}\n".encode())
        time.sleep(4)  # hold it while the others fill theirs
        os._exit(0)
os.close(report_write)
reports = b""
while reports.count(b"\n") < PROCESSES and (chunk := os.read(report_read, 4096)):
    reports += chunk
held = sum(int(line) for line in reports.split())
print("held", held // 2**20, "MiB in kernel buffers:", "more than the run's memory" if held > BUDGET else "within it")
raise SystemExit(1)
