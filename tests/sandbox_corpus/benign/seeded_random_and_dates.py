# Benign: a seeded random generator and date arithmetic.
import datetime
import random

rng = random.Random(42)
print([rng.randint(1, 100) for _ in range(5)], rng.choice("abcdef"))
start = datetime.date(2024, 2, 27)
print([(start + datetime.timedelta(days=d)).isoformat() for d in range(4)])
