"""Counting shapes by how they are drawn: "how many shapes are just outlines", "how many r filled in".

``asks_by_fill`` reads which the question keeps (filled ones, outlines, or both); ``picks_by_fill`` says whether it
names a fill at all, so a wording neither reading knows is withheld rather than counted over every shape.
"""

from __future__ import annotations

import re

_SHAPE_NOUN = r"(?:shapes?|ones?|circles?|squares?|triangles?|stars?|hexagons?|pentagons?|diamonds?|rectangles?)"
_ARE = r"(?:are|r|is|re)"  # "how many shapes r filled in"
_OUTLINES_ONLY = re.compile(rf"\b{_ARE}\s+(?:just|only)\s+(?:an?\s+)?(?:outlines?|outlined|hollow|empty)\b|"
                            rf"\b(?:outlined|hollow|unfilled|empty)\s+{_SHAPE_NOUN}\b|\bnot\s+(?:filled|solid)\b|"
                            rf"\b{_ARE}\s+(?:outlines?|outlined|hollow|unfilled)\b", re.I)
_FILLED_ONLY = re.compile(rf"\b(?:filled(?:[- ]in)?|solid|coloured[- ]in|colored[- ]in)\s+{_SHAPE_NOUN}\b|"
                          rf"\b{_ARE}\s+(?:just\s+|all\s+)?(?:filled|solid|colou?red\s+in|shaded)\b", re.I)
#: Any word that picks shapes by how they are drawn: a question holding one counts only some of the shapes.
_FILL_WORDS = re.compile(r"\b(?:filled|unfilled|solid|outlines?|outlined|hollow|empty|shaded|colou?red[- ]in)\b",
                         re.I)
#: "(the outlined one counts too)", "including the hollow one", "incl the empty ones", "plus the outlines", "(count
#: the empty ones too)": every shape, not only those.
_ALL_OF_THEM = re.compile(r"\binclud|\bincl?\b\.?|\bcounts?\s+too\b|\b(?:ones?|shapes?|them|those)\s+too\b|"
                          r"\bas well\b|\balso\b|\bincluding\b|"
                          r"\b(?:plus|with|and)\s+(?:the\s+|all\s+the\s+)?(?:empty|hollow|outlined|unfilled|filled|"
                          r"solid)\s+(?:ones?|shapes?)\b|\bboth\s+(?:filled|solid|empty|hollow|outlined)\b", re.I)


def picks_by_fill(question: str) -> bool:
    """Whether ``question`` counts only some shapes by how they are drawn ("filled", "outlines"), in any words."""
    return bool(_FILL_WORDS.search(question)) and not _ALL_OF_THEM.search(question)


def asks_by_fill(question: str) -> bool | None:
    """True when ``question`` counts only filled shapes, False only outlines, None when it counts both."""
    if _ALL_OF_THEM.search(question):
        return None
    if _OUTLINES_ONLY.search(question):
        return False
    return True if _FILLED_ONLY.search(question) else None
