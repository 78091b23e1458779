import csv
import json
import sys

rows = list(csv.DictReader(sys.stdin))
means = {}
for column in rows[0].keys() if rows else []:
    try:
        values = [float(row[column]) for row in rows]
    except ValueError:
        continue
    means[column] = sum(values) / len(values)
print(json.dumps({"rows": len(rows), "means": means}, sort_keys=True))
