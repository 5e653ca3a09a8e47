# Attempts: write a compiled .so into the work dir and load it; its constructor writes outside and connects out.
import base64
import ctypes
import json
import sys

cfg = json.load(sys.stdin)
if not cfg.get("evil_so"):
    raise SystemExit("no compiler on the test machine: nothing to load")
with open("evil.so", "wb") as handle:
    handle.write(base64.b64decode(cfg["evil_so"]))
library = ctypes.CDLL("./evil.so")
escaped = library.escaped()
print("constructor results:", escaped)
if escaped <= 0:
    raise PermissionError("the library's code ran but could neither write outside nor connect out")
