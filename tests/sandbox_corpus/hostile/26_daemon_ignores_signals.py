# Attempts: a daemon that ignores SIGTERM/SIGHUP and keeps running while the parent hangs past the timeout.
# exit-status: any
# timeout: 3
import json
import os
import signal
import sys
import time

cfg = json.load(sys.stdin)
for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(sig, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "import signal, time\n"
                              "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)", cfg["token"]])
time.sleep(3600)
