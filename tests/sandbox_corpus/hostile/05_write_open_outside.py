# Attempts: write a new file in a host directory outside the sandbox with open(..., "w").
import json
import sys

cfg = json.load(sys.stdin)
with open(f"{cfg['outside']}/pwned_by_open.txt", "w") as handle:
    handle.write("escaped")
