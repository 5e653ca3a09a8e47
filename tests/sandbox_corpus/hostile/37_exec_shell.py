# Attempts: replace the interpreter with a shell (os.execv) or any binary on the host's PATH.
import os

for binary in ("/bin/sh", "/usr/bin/bash", "/usr/bin/curl", "/usr/bin/env"):
    try:
        os.execv(binary, [binary, "-c", "id"])
    except OSError as exc:
        print("refused", binary, exc)
        last = exc
raise last
