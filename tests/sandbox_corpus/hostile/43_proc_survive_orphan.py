# Attempts: an orphan with no marker (fork, setsid, stdio closed, no exec) that outlives the run and then writes outside.
# exit-status: any
import json
import os
import signal
import sys
import time

cfg = json.load(sys.stdin)
if os.fork() == 0:
    os.setsid()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    os.closerange(0, 3)
    time.sleep(1.5)
    with open(cfg["outside"] + "/pwned_by_orphan", "w") as handle:
        handle.write("alive")
    os._exit(0)
print("parent leaves its orphan behind")
