# Benign: integer and floating-point maths, big integers, statistics.
import math
import statistics

print(sum(i * i for i in range(1000)), math.factorial(30), round(math.pi * math.e, 6))
print(math.gcd(1071, 462), math.comb(40, 20), 2 ** 200 % 1_000_000_007)
print(statistics.mean([2, 4, 4, 4, 5, 5, 7, 9]), statistics.pstdev([2, 4, 4, 4, 5, 5, 7, 9]))
