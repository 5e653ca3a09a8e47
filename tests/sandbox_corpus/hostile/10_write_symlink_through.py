# Attempts: plant symlinks in the work dir that point at the outside victim and at site-packages, then write through them.
import json
import os
import sys

cfg = json.load(sys.stdin)
os.symlink(f"{cfg['outside']}/victim.txt", "to_victim")
os.symlink(f"{cfg['site_packages']}/pwned_by_symlink.pth", "to_pth")
for link in ("to_victim", "to_pth"):
    try:
        with open(link, "w") as handle:
            handle.write("import os; os.system('id')\n")
        print("wrote through", link)
    except OSError as exc:
        print("refused", link, exc)
        last = exc
raise last
