# Attempts: create and overwrite files outside with os.open(O_WRONLY | O_CREAT | O_TRUNC) (once checked as a read).
import json
import os
import sys

cfg = json.load(sys.stdin)
for target in (f"{cfg['outside']}/victim.txt", f"{cfg['outside']}/pwned_by_os_open", "/pwned_at_root"):
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"escaped")
        os.close(fd)
        print("wrote", target)
    except OSError as exc:
        print("refused", target, exc)
        last = exc
raise last
