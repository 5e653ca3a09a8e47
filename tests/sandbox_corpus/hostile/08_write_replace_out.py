# Attempts: overwrite the outside victim file and the venv's site.py through os.replace from the work dir.
import json
import os
import sys

cfg = json.load(sys.stdin)
with open("payload.txt", "w") as handle:
    handle.write("escaped")
for target in (f"{cfg['outside']}/victim.txt", f"{cfg['site_packages']}/pwned_by_replace.py"):
    try:
        os.replace("payload.txt", target)
        print("replaced", target)
    except OSError as exc:
        print("refused", target, exc)
        last = exc
raise last
