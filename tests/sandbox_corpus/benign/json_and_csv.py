# Benign: JSON and CSV round trips in memory.
import csv
import io
import json

records = [{"name": "ada", "score": 3.5, "tags": ["x", "y"]}, {"name": "bob", "score": 2, "tags": []}]
encoded = json.dumps(records, sort_keys=True)
print(encoded, json.loads(encoded) == records)
buffer = io.StringIO()
writer = csv.DictWriter(buffer, fieldnames=["name", "score"], extrasaction="ignore")
writer.writeheader()
writer.writerows(records)
print(list(csv.DictReader(io.StringIO(buffer.getvalue()))))
