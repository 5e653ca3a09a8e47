# Benign: read its standard input and summarise it.
import json
import sys

data = sys.stdin.read()
print(len(data), sorted(json.loads(data)) if data.strip().startswith("{") else data[:20])
