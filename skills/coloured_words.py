"""Questions about the one word printed in a colour: "what does the red word say?", "what word is written in
pink?", "where is the coloured word?", "One word is in colour - which colour?", "what colour is that word?".

Shared by OCR (reading the word) and Perception (where it is, what colour). The word is found by its colour
(``vision_tools.text.coloured``), so a word lost among thousands of grey ones in a 4K image is read from a crop
around it. Only one word of that colour may be in the image: two, and "the red word" could be either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from PIL import Image

from skills.base import ToolTrace
from skills.common import COLOUR_WORDS
from vision_tools.image.colour import canonical_name
from vision_tools.text.coloured import ColouredText, find_coloured_text
from vision_tools.zoom import position

#: The OCR confidence a word's reading needs to be given as printed.
SURE_READING = 0.85

_COLOURS = "|".join(sorted(COLOUR_WORDS, key=len, reverse=True))
_NOUN = r"(?:word|text|writing|lettering|letters)"
_PICKED = re.compile(rf"\b(?P<colour>{_COLOURS}|colou?red|colou?rful|hidden|only)\s+{_NOUN}\b"
                     rf"|\b(?:word|text)\s+(?:is\s+|that\s+is\s+)?(?:written|printed)\s+in\s+(?P<colour2>{_COLOURS})\b"
                     rf"|\b(?:one|a|the|which|what)\s+{_NOUN}\s+(?:is|are)\s+(?:(?:written|printed)\s+)?(?:in\s+)?"
                     rf"colou?r(?:ed)?\b"
                     # "what colour is that word?": the one word, named by nothing else (not "the word STOP")
                     r"|\bcolou?r\s+is\s+(?:the|that|this)\s+(?:only\s+|one\s+|single\s+)?word\b"
                     r"(?=\s*(?:[?.!]|$|(?:in|on)\s+(?:the|this)\s+(?:pic|picture|image|photo)\b|here\b))", re.I)
_WHERE = re.compile(r"\bwhere(?:'s|s)?\b|\bwhich (?:part|corner|side|quadrant)\b|\blocated\b|"
                    r"\b(?:left|right|top|bottom)\s+or\s+(?:the\s+)?(?:left|right|top|bottom)\b", re.I)
_COLOUR_ASKED = re.compile(r"\b(?:what|which)\s+colou?r\b|\bcolou?r\s+is\b|(?<!\bin )\bcolou?r\?", re.I)
_READ = re.compile(r"\bsays?\b|\bread(?:s)?\b|\bspell|\bwhat\s+(?:word|text)\b|\bwhich\s+word\b|\bwritten\b|"
                   r"\bwhat\s+is\s+the\b", re.I)


@dataclass(frozen=True)
class WordQuestion:
    """What a question asks of the coloured word, and the colour it picks the word by (None: any vivid one)."""

    asks: Literal["read", "where", "colour"]
    colour: str | None


@dataclass(frozen=True)
class WordAnswer:
    answer: str | None
    confidence: float
    missing: str | None
    found: ColouredText


def coloured_word_question(question: str) -> WordQuestion | None:
    """The coloured-word question ``question`` asks, or None."""
    picked = _PICKED.search(question)
    if picked is None:
        return None
    word = picked.group("colour") or picked.group("colour2") or ""
    try:
        colour = canonical_name(word) if word else None
    except ValueError:
        colour = None  # "coloured", "hidden", "only": any vivid colour
    if _WHERE.search(question):
        return WordQuestion("where", colour)
    if re.search(r"\b(?:which|what)\s+(?:word|text)\b", question, re.I):
        return WordQuestion("read", colour)  # "which word is in colour?": the word, not its colour
    if _COLOUR_ASKED.search(question):
        return None if colour else WordQuestion("colour", None)
    if _READ.search(question):
        return WordQuestion("read", colour)
    return None


def coloured_word_answer(ask: WordQuestion, image: Image.Image, trace: ToolTrace) -> WordAnswer:
    """The word's reading, place or colour, as ``ask`` asks; or what is missing."""
    found = trace.call("text.find_coloured_text", find_coloured_text, image, ask.colour)
    which = f"{ask.colour} " if ask.colour else "coloured "
    if found.box is None:
        return WordAnswer(None, 0.0, f"no {which}word was found in the image", found)
    if found.words > 1:
        return WordAnswer(None, 0.0, f"{found.words} {which}words are in the image, and the question does not "
                                     "single one out", found)
    if ask.asks == "where":
        place, clear = position(found.box, found.image_size)
        if not clear:
            return WordAnswer(None, 0.0, "the word lies on a border between parts of the image, which no one names "
                                         "alike", found)
        return WordAnswer(place, 0.9, None, found)
    if ask.asks == "colour":
        return WordAnswer(found.colour, 0.9, None, found) if found.colour else \
            WordAnswer(None, 0.0, "the word's colour has no name in the palette", found)
    if found.confidence < SURE_READING or not re.fullmatch(r"[\w'’&.-]+(?: [\w'’&.-]+){0,3}", found.text):
        return WordAnswer(None, 0.0, f"the {which}word was found but not read clearly "
                                     f"({found.text!r}, confidence {found.confidence:.2f})", found)
    return WordAnswer(found.text, round(0.9 * found.confidence, 3), None, found)
