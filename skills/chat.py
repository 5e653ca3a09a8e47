"""Chat around a question: "hey, is glass more than …", "ok so did sales go up".

Users type to the app as to a person. Rules that read a question's form ("is …" asks Yes or No) or its wording
read the question proper, after the chat before it.
"""

from __future__ import annotations

import re

#: Chat before the question proper: "hey is glass more than …", "ok so did sales go up". Stripped only before a
#: word that starts a question, so "so many …" or "please note" stay as typed.
_OPENER = re.compile(r"^\s*(?:(?:hey|hi|hiya|hello|ok|okay|so|um+|erm|pls|please|plz|quick question|question)\b"
                     r"[\s,.:;!-]*)+(?=(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|"
                     r"what|whats|what's|wat|which|wich|how|hw|where|when|who|why|whose|tell|count|give|show|find)\b)",
                     re.IGNORECASE)


def without_opener(question: str) -> str:
    """``question`` without the chat before it ("hey, is …" is "is …"), so that its form and its wording are read
    from the question proper."""
    return _OPENER.sub("", question, count=1)
