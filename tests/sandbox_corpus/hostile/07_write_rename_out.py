# Attempts: move a file from the work dir to outside with os.rename (the old guard checked only the source).
import json
import os
import sys

cfg = json.load(sys.stdin)
with open("payload.txt", "w") as handle:
    handle.write("escaped")
os.rename("payload.txt", f"{cfg['outside']}/pwned_by_rename.txt")
