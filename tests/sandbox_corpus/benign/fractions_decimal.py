# Benign: exact arithmetic with fractions and decimals.
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 40
print(sum(Fraction(1, n) for n in range(1, 21)))
print(Decimal(1) / Decimal(7), Decimal("0.1") + Decimal("0.2"))
