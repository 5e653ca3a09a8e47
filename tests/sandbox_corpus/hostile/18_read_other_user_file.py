# Attempts: read a file that belongs to another user (mode 0600) in the host's /tmp.
import json
import sys

cfg = json.load(sys.stdin)
with open(cfg["other_user_file"]) as handle:
    print(handle.read())
