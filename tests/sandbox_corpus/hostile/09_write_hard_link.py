# Attempts: hard-link an outside file (and a library) into the work dir, then write through the link.
import json
import os
import sys
import sysconfig

cfg = json.load(sys.stdin)
for source in (f"{cfg['outside']}/victim.txt", os.path.join(sysconfig.get_paths()["stdlib"], "os.py")):
    try:
        os.link(source, "linked")
        with open("linked", "a") as handle:
            handle.write("escaped")
        print("linked and wrote", source)
    except OSError as exc:
        print("refused", source, exc)
        last = exc
raise last
