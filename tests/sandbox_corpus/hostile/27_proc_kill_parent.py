# Attempts: kill the parent (os.kill(os.getppid())), every process it may signal (kill -1), and a host process by pid.
import json
import os
import signal
import sys

cfg = json.load(sys.stdin)
failures = []
for target in (os.getppid(), -1, cfg["victim_pid"]):
    try:
        os.kill(target, signal.SIGKILL)
        print("signalled", target)
    except OSError as exc:
        print("refused", target, exc)
        failures.append(exc)
if len(failures) < 3:
    raise SystemExit(0)  # something was signalled: the test checks whether anything outside died
raise failures[-1]
