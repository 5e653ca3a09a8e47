# Benign: itertools, heapq, bisect and dataclasses.
import bisect
import heapq
import itertools
from dataclasses import dataclass


@dataclass(order=True)
class Item:
    cost: int
    name: str


print(list(itertools.permutations("abc", 2)), list(itertools.accumulate(range(6))))
print(heapq.nsmallest(2, [Item(5, "e"), Item(1, "a"), Item(3, "c")]))
print(bisect.bisect_left([1, 3, 5, 7], 4), list(itertools.islice(itertools.cycle("xy"), 5)))
