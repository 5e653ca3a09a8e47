# Attempts: read the data directory's database (stored runs, ratings) by its absolute path.
import json
import sys

cfg = json.load(sys.stdin)
with open(cfg["data_file"], "rb") as handle:
    print(handle.read())
