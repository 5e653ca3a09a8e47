# Attempts: destroy the ratings: truncate the database in the data directory and delete it.
import json
import os
import sys

cfg = json.load(sys.stdin)
os.truncate(cfg["data_file"], 0)
os.remove(cfg["data_file"])
