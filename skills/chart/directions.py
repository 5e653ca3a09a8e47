"""The words a question uses for a value going up or down, in one place.

"Did sales rise", "how much did it grow from May to June", "which month did the bill go down", "is the trend
upward": several rules read a direction of change, and each had kept its own list of verbs. ``RISE`` and ``FALL``
are verbs only, safe wherever a rule looks for the verb of a question ("surgeries" or "gains" must not be read as
a rise there); ``GAIN``/``LOSS`` add the verbs of amounts won and lost, and ``SURGE``/``SLUMP`` the words of trend
statements, for the rules that read those. All are regular-expression alternatives (no groups, no word
boundaries) for the rules to wrap in their own patterns.
"""

from __future__ import annotations

import re

RISE = (r"go(?:es)? up|went up|gone up|going up|ris(?:e|es|en|ing)|rose|increas(?:e|es|ed|ing)|"
        r"gr[eo]w(?:s|n|ing)?|climb(?:s|ed|ing)?|improv(?:e|es|ed|ing)")
FALL = (r"go(?:es)? down|went down|gone down|going down|fall(?:s|en|ing)?|fell|drop(?:s|ped|ping)?|"
        r"declin(?:e|es|ed|ing)|decreas(?:e|es|ed|ing)|dip(?:s|ped)?|shr[iau]nk(?:s|ing)?")
GAIN = r"gain(?:s|ed|ing)?|jump(?:s|ed|ing)?"
LOSS = r"los(?:e|es|ing)|lost"
SURGE = r"soar\w*|surg(?:e|es|ed|ing)|skyrocket\w*|upward|growth|improvements?"
SLUMP = r"collaps\w*|plung\w*|plummet\w*|downward"

_RISE_WORD = re.compile(rf"(?:{RISE}|{GAIN}|up|higher)")


def is_rise(word: str) -> bool:
    """Whether ``word`` (one verb or phrase a pattern caught: "grew", "went up", "higher") says the value rose."""
    return _RISE_WORD.fullmatch(word) is not None
