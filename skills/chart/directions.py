"""The words a question uses for a value going up or down, in one place.

"Did sales rise", "how much did it grow from May to June", "which month did the bill go down", "is the trend
upward": several rules read a direction of change, and each had kept its own list of verbs, so a word learnt by
one ("dipped", "jumped") stayed unknown to the others. These are regular-expression alternatives (no groups, no
word boundaries) for the rules to wrap in their own patterns.
"""

from __future__ import annotations

import re

RISE = (r"go(?:es)? up|went up|gone up|going up|ris(?:e|es|en|ing)|rose|increas\w*|gr[eo]w\w*|climb\w*|gain\w*|"
        r"jump\w*|improv\w*|soar\w*|surg\w*|skyrocket\w*|upward")
FALL = (r"go(?:es)? down|went down|gone down|going down|fall\w*|fell|drop\w*|declin\w*|decreas\w*|dip(?:s|ped)?|"
        r"shr[iau]nk\w*|los(?:e|es|ing)|lost|collaps\w*|plung\w*|plummet\w*|downward")

_RISE_WORD = re.compile(rf"(?:{RISE}|up|higher)")


def is_rise(word: str) -> bool:
    """Whether ``word`` (one verb or phrase a pattern caught: "grew", "went up", "higher") says the value rose."""
    return _RISE_WORD.fullmatch(word) is not None
