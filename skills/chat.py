"""Chat around a question: "hey, is glass more than …", "ok so did sales go up".

Users type to the app as to a person. Rules that read a question's form ("is …" asks Yes or No) or its wording
read the question proper, after the chat before it.
"""

from __future__ import annotations

import re

from vision_tools.image.shape_words import SHAPES

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


#: Question words as users type them in chat, and the word meant: every rule reads the word meant.
_CHAT_WORDS = {"wich": "which", "whcih": "which", "wihch": "which", "whihc": "which", "hw": "how", "wat": "what",
               "wut": "what", "wot": "what", "whta": "what", "teh": "the", "hte": "the"}


#: "r there more …", "r the blue ones …": a lower-case "r" before these is "are" ("is R more used than Python" keeps
#: the language's name).
_ARE = re.compile(r"(?<![\w'’])r(?= (?:there|these|those|they|the|any|all|both|u|you|we)\b)")


def chat_spelled(question: str) -> str:
    """``question`` with question words typed as in chat written out ("wich month", "hw many", "r there"), and a
    shape word typed with one slip written right (``shape_words_spelled``)."""
    def spelled(match: re.Match[str]) -> str:
        word = match.group(0)
        meant = _CHAT_WORDS.get(word.lower())
        if meant is None:
            return word
        return meant.capitalize() if word[:1].isupper() else meant

    return shape_words_spelled(re.sub(r"[A-Za-z]+", spelled, _ARE.sub("are", question)))


#: Shape words long enough that one slip of typing leaves them unmistakable ("triangels", "hexgon", "circel").
_SHAPE_WORDS = tuple(w for name in [*SHAPES, "diamond"] if len(name) >= 6 for w in (name, name + "s"))


def shape_words_spelled(question: str) -> str:
    """``question`` with a shape word typed with one slip written right: two neighbouring letters swapped, or one
    letter dropped or doubled ("how many triangels r there" counts triangles). Words ending as verbs do ("squared",
    "circling") are left as typed."""
    def spelled(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if len(lower) < 5 or lower in _SHAPE_WORDS or lower.endswith(("ed", "ing", "er")):
            return word
        fits = [w for w in _SHAPE_WORDS if _one_slip(lower, w)]
        return fits[0] if len(fits) == 1 else word

    return re.sub(r"[A-Za-z]+", spelled, question)


def _one_slip(typed: str, word: str) -> bool:
    if len(typed) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and typed[diff[0]] == word[diff[1]] and \
            typed[diff[1]] == word[diff[0]]
    shorter, longer = sorted((typed, word), key=len)
    return len(longer) - len(shorter) == 1 and any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))
