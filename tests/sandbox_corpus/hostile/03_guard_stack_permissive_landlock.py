# Attempts: switch Landlock off by applying a second, permissive ruleset on "/", then write into the repository.
import json
import sys

cfg = json.load(sys.stdin)
guard = sys.modules["__main__"].__dict__
guard["_REFUSED_IMPORTS"] = frozenset()  # the hook refuses ctypes; Landlock's binding needs it
from landlock import Ruleset  # noqa: E402

ruleset = Ruleset()
ruleset.allow("/")
ruleset.apply()
with open(f"{cfg['repo']}/pwned_by_landlock.txt", "w") as handle:
    handle.write("escaped")
