# Attempts: walk the whole visible filesystem looking for the data directory's secret in any readable file.
import json
import os
import sys

cfg = json.load(sys.stdin)
secret = cfg["data_secret"].encode()
seen = 0
for root, _dirs, files in os.walk("/", onerror=lambda exc: None):
    for name in files:
        try:
            with open(os.path.join(root, name), "rb") as handle:
                seen += 1
                if secret in handle.read(1 << 20):
                    print("found the secret in", os.path.join(root, name))
                    raise SystemExit(0)
        except OSError:
            continue
raise SystemExit(f"secret not found in {seen} readable files")
