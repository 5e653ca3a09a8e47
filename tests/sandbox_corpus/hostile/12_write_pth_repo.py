# Attempts: persistence: write a .pth file and a sitecustomize.py into the repository (on sys.path in development).
import json
import sys

cfg = json.load(sys.stdin)
with open(f"{cfg['repo']}/sitecustomize.py", "w") as handle:
    handle.write("print('pwned')\n")
with open(f"{cfg['repo']}/pwned_by_pth.pth", "w") as handle:
    handle.write("import os\n")
