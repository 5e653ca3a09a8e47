"""What a question is about, read from its words: the thing it asks to count, the object whose colour (or place)
it asks for, and whether the tools can find such a thing at all.

The pixel tools find drawn shapes, colour blobs and quoted text; detectors find faces and people. A question about
anything else ("how many cups", "what colour is the cup") names a thing no tool can locate, and the skills must
say so instead of answering about something else (the dominant colour of the whole photo, a count of shapes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skills.common import colours_in, shape_in

_COUNTED = re.compile(r"\b(?:how many|count(?:ing)?|number of|tally)\s+(?:the\s+|all\s+|of\s+|total\s+|"
                      r"number\s+of\s+)*((?:[a-z'-]+\s*){1,4})", re.IGNORECASE)
#: Words between "how many" and the counted noun that say nothing about what is counted.
_FILLER = frozenset(["the", "a", "an", "of", "all", "total", "different", "distinct", "visible", "separate",
                     "individual", "small", "large", "big", "little", "complete", "whole", "outlined", "filled",
                     "drawn", "coloured", "colored", "solid", "hollow", "overlapping", "nested", "you", "see",
                     "kinds", "types"])
#: Words that end the counted noun phrase.
_PHRASE_END = frozenset(["in", "on", "at", "of", "from", "during", "per", "are", "is", "were", "was", "does", "do",
                         "did", "has", "have", "that", "which", "who", "over", "across", "between", "to", "for",
                         "by", "with", "and", "or", "can", "there", "inside", "within", "shown", "visible", "please",
                         "thanks", "thank", "kindly", "pls", "plz", "thx",
                         "r", "u", "here", "altogether"])  # chat spellings: "how many triangles r there"
#: Nouns that mean "every drawn shape" on a drawing.
ANY_SHAPE = frozenset(["shape", "figure", "polygon", "object", "item", "thing", "element", "form"])
#: The object of an attribute question: "what colour is the X", "the colour of the X", "which colour is X".
_ATTRIBUTE_OF = re.compile(
    r"\b(?:colou?r|shade|hue)\s+(?:is|are|was|were|of|does)\s+(?:the\s+|this\s+|that\s+|these\s+|those\s+|a\s+|an\s+)?"
    r"(?P<object>[a-z][a-z' -]{0,60}?)\s*(?:\?|$|\.|,|\bin\b|\bon\b|\bat\b|\bnear\b|\bnext\b|\bhave\b|\bhas\b|"
    # "the small shape hidden in the clutter", "the circle drawn at the top": what it is ends before how it is placed
    r"\bappear|\blook|\b(?:hidden|drawn|shown|placed|located|sitting|lying|somewhere|that|which)\b)", re.IGNORECASE)
#: Words that name the image as a whole rather than something in it.
_WHOLE_IMAGE = re.compile(r"\b(?:image|picture|photo(?:graph)?|scene|background|overall|whole|entire|dominant|"
                          r"predominant|prevalent|main|most common|common)\b", re.IGNORECASE)
_IN_THE_IMAGE = re.compile(r"\b(?:in|on|of|from|within)\s+(?:the|this|that|my|your)\s+(?:image|picture|photo(?:graph)?|"
                           r"scene|pic)\b", re.IGNORECASE)
_BACKGROUND = re.compile(r"\bbackground\b", re.IGNORECASE)


@dataclass(frozen=True)
class Counted:
    """What a question asks to count: its noun (singular), and the shape and colour it names."""

    noun: str | None
    shape: str | None
    colour: str | None

    @property
    def names_object(self) -> bool:
        """Whether the counted noun is a thing other than a drawn shape ("cup", "car", "row")."""
        return self.noun is not None and self.noun not in ANY_SHAPE and shape_in(self.noun) is None


def counted(question: str) -> Counted:
    """The thing ``question`` asks to count: the noun phrase after "how many" / "count" / "number of" ends at the
    first verb or preposition, and its last word is the head noun ("number of daily visitors to" -> "visitor")."""
    match = _COUNTED.search(question)
    phrase: list[str] = []
    for word in re.findall(r"[a-z'-]+", match.group(1).lower()) if match else []:
        if word in _PHRASE_END:
            break
        if word not in _FILLER and not colours_in(word):
            phrase.append(word)
    colours = colours_in(question)
    noun = singular(phrase[-1]) if phrase else None
    if noun == "one" and colours:
        noun = "shape"  # "how many green ones r there": green shapes of any kind
    return Counted(noun, shape_in(question), colours[0] if colours else None)


def attribute_object(question: str) -> str | None:
    """The object an attribute question asks about ("What colour is the cup?" -> "cup"), or None when the
    question names none."""
    match = _ATTRIBUTE_OF.search(question)
    if not match:
        return None
    words = [w for w in match.group("object").lower().split() if w not in ("the", "a", "an", "this", "that")]
    return " ".join(words) or None


def asks_about_whole_image(question: str, object_phrase: str | None) -> bool:
    """Whether the question is about the image as a whole (its dominant colour, its background). "There is one
    colourful square in the picture. What colour?" is about the square: "in the picture" says where, not what."""
    if object_phrase is None:
        rest = _IN_THE_IMAGE.sub(" ", question)
        return bool(_WHOLE_IMAGE.search(rest)) and shape_in(rest) is None
    return bool(_WHOLE_IMAGE.fullmatch(object_phrase.split()[-1]) or _WHOLE_IMAGE.search(object_phrase))


def asks_background(question: str) -> bool:
    return bool(_BACKGROUND.search(question))


#: "the shape that isn't grey", "a non-grey shape": a thing named by a colour it is not.
_NOT_COLOUR = re.compile(r"\b(?P<noun>[a-z]+)\s+(?:that|which)\s+(?:is\s*n[o']?t|isnt|is\s+not|are\s*n[o']?t|arent|"
                         r"are\s+not)\s+(?P<colour>[a-z]+)\b|\bnon-?\s*(?P<colour2>[a-z]+)\s+(?P<noun2>[a-z]+)\b", re.I)
_ACHROMATIC = {"grey", "gray", "white", "black", "silver"}


def without_negated_colours(question: str) -> tuple[str, str | None]:
    """``question`` with "the shape that isn't grey" written "the coloured shape" (grey, white and black are what
    coloured is not), and a colour it is not that is itself a colour ("the circle that isn't red"), which the tools
    cannot pick by, or None."""
    for match in _NOT_COLOUR.finditer(question):
        colour = (match.group("colour") or match.group("colour2") or "").lower()
        noun = match.group("noun") or match.group("noun2")
        if colour in _ACHROMATIC:
            return question[:match.start()] + f"coloured {noun}" + question[match.end():], None
        if colours_in(colour):
            return question, f"not {colour}"
    return question, None


def singular(word: str) -> str:
    """A plural noun made singular ("cups" -> "cup", "boxes" -> "box", "berries" -> "berry")."""
    word = word.strip("'-")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
