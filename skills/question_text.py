"""The part of a question that says what it is about, apart from how to answer it and from its options.

Routing (Level 1 and Level 2) matches keywords against this text. Sentences that say how to answer ("Answer with
the option's letter from the given choices directly.", "Put your answer in curly brackets, e.g., {2}.") describe
the answer's form, not the task: "letter" in them once sent every multiple-choice question to the circled-letter
tool. The options of a multiple-choice question are statements about the image ("salaries above 18 thousand",
"the red segment"); their words are kept apart so that routing can weigh them below the stem's.
"""

from __future__ import annotations

import re

from skills.answer_form import parse_options

# "Answer with ...", "Please answer using ...", "Put your answer in ...", "Choose the correct option.",
# "Respond with a single word." — up to the end of the sentence (an "e.g." inside it does not end it).
_INSTRUCTION = re.compile(
    r"(?:^|(?<=[.!?:\n]))[ \t]*(?:please[ \t]+)?(?:answer[ \t]+(?:with|using|in|by|the[ \t]+question[ \t]+"
    r"(?:with|using))|respond|reply|put[ \t]+your[ \t]+answer|give[ \t]+your[ \t]+answer|"
    r"(?:choose|select|pick)[ \t]+(?:the|one|from|an?)\b)(?:e\.g\.|i\.e\.|[^.!?\n]|\.(?=\S))*[.!?]?", re.IGNORECASE)
_OPTION_START = re.compile(r"(?:^|\n)[ \t]*\(?A[.):][ \t]|[ \t]\(A\)[ \t]|(?<=[?:])[ \t]+A[.)][ \t]", re.MULTILINE)


def task_text(question: str) -> tuple[str, str]:
    """``(stem, options)``: what ``question`` asks without its answer-format instructions, and the text of its
    multiple-choice options ("" when it offers none)."""
    text = _INSTRUCTION.sub(" ", question)
    if not parse_options(question):
        return text.strip(), ""
    start = _OPTION_START.search(text)
    if start is None:
        return text.strip(), ""
    return text[: start.start()].strip(), text[start.start():].strip()


#: Abbreviations a question uses for a word an image prints in full: "hrs" over "Hours played" or "2 hours".
ABBREVIATED = {"hr": "hour", "hrs": "hours", "min": "minute", "mins": "minutes", "sec": "second", "secs": "seconds",
                "yr": "year", "yrs": "years", "wk": "week", "wks": "weeks", "kms": "km", "temp": "temperature",
                "temps": "temperatures", "avg": "average", "pct": "percent", "approx": "approximately"}


def written_out(word: str) -> str:
    """``word`` in full when it is a short form ("hrs" -> "hours"), else as it is; "min" stays (also "minimum")."""
    return word if word == "min" else ABBREVIATED.get(word.lower(), word)


_WH = r"(?:what|which|how many|how much|where|when|who|whose|why)"
#: "How many triangles are there and what colour are they?", "Is there a star? If so, what colour is it?"
_FIELD = (r"(?:date|time|total|price|name|address|amount|phone(?:\s+number)?|day|hours?|coach|carriage|car|seat|"
          r"platform|gate|terminal|row|zone|room|floor|size|colou?r)(?:\s+(?:number|no\.?))?")
_TWO_THINGS = re.compile(rf"\b{_WH}\b[^?]*?\band\s+(?:(?:at|on|in|for|from|by|to|with|until|till)\s+)?"
                         rf"(?P<second>{_WH})\b"
                         rf"|\?\s*(?:if so|if yes|if there is|and)\b[^?]*?\b(?P<then>{_WH})\b"
                         # "Is it open on Sunday? What time does it close?": a second question after the first
                         rf"|\?\s+(?P<next>(?:and\s+)?{_WH}\b[^?]*\w)"
                         # "Open on Sunday, and until when?", "the date and total"
                         r"|\band\s+(?P<until>(?:until|till)\s+(?:when|what))\b"
                         rf"|\b{_FIELD}\s+and\s+(?:the\s+)?(?P<pair>{_FIELD})\b", re.IGNORECASE)


def asks_two_things(question: str) -> str | None:
    """The words that ask a second thing when ``question`` asks two ("and what colour", "If so, what"), else None.
    The options of a multiple-choice question are not looked at."""
    stem = task_text(question)[0] or question
    match = _TWO_THINGS.search(stem)
    if match is None:
        return None
    part = next(name for name in ("second", "then", "next", "until", "pair") if match.group(name))
    if part == "next" and _FIND_REQUEST.match(stem[:match.start()]) and _LOOKS_OF_IT.match(match.group(part)):
        return None  # "can u find the coloured shape? what colour is it": finding it is the way to the one answer
    return stem[match.start(part):].strip(" ?")[:60]


#: What a look at the thing found tells: its colour, its shape, where it is (not what it says: "it" may be any text).
_LOOKS_OF_IT = re.compile(r"(?:and\s+)?(?:(?:what|which)\s+(?:colou?r|shape)\b|where\b|which\s+(?:corner|side|part|"
                          r"quadrant)\b)", re.IGNORECASE)
#: A request to find or see something, before the question about it: no second question of its own.
_FIND_REQUEST = re.compile(r"^\W*(?:(?:hey|hi|ok|okay|so)\W+)?(?:(?:can|could|would)\s+(?:you|u)\s+|please\s+|pls\s+|"
                           r"try\s+to\s+)?(?:find|spot|see|locate|look\s+for|search\s+for)\b[^?]*$"
                           r"|^\W*(?:do|can)\s+(?:you|u)\s+see\b[^?]*$", re.IGNORECASE)


#: "If the monthly income is $3000, how much goes to rent?", "if i get a latte and a croissant how much is that",
#: "If two people split the total evenly…", "How much is a 20% tip?": a calculation from a premise the question
#: states, which no printed span or single reading answers.
_CALCULATION = re.compile(r"\bif\s+(?:(?:i|we|you|they|he|she|someone|everyone|each|two|three|four|\d+)\b[^?,.;]{0,40}?"
                          r"(?:\b(?:buy|bought|get|order|take|pay|spend|add|split|share|need|want)\b|[$£€]?\d)"
                          r"|(?:the|my|our)\s+[\w\s]{1,30}?\s(?:is|was|were|are|costs?|pays?)\s+[$£€\d])"
                          # not "usage per person" (a measure): a bill shared out is split, divided or each one's
                          r"|\bsplit\b|\beach\s+(?:pay|owe|get)s?\b|\b(?:divided|shared)\s+(?:between|among|by)\b"
                          r"|\bevenly\b"
                          r"|\bhow\s+much\s+(?:would|will|do|does|did|are|is)\s+(?:two|three|four|five|six|[2-9]|\d{2,})\s"
                          r"|(?<![\d.])\d+(?:\.\d+)?\s?%\s+(?:tip|gratuity|service|of\s+(?:the|my|our|a|\$|£|€|\d))\b",
                          re.IGNORECASE)


def asks_to_calculate(question: str) -> str | None:
    """The words that set a calculation from a premise ("if the monthly income is $3000", "split evenly", "a 20% tip
    on the subtotal"), else None: the tools read values, and their one reading is not what such a question asks."""
    stem = task_text(question)[0] or question
    match = _CALCULATION.search(stem)
    return None if match is None else stem[match.start():].strip(" ?")[:60]


#: "How many shapes does the red circle overlap?", "how many dots are inside the square?", "which circles touch the
#: line": things picked by how they lie against another thing, which a count or a look at one thing does not see.
_RELATION = re.compile(r"\b(?:overlap(?:s|ping|ped)?|touch(?:es|ing|ed)?|intersect(?:s|ing|ed)?|inside|within|"
                       r"contain(?:s|ed|ing)?|surround(?:s|ed|ing)?|enclos(?:e|es|ed|ing)|next to|adjacent|beside|"
                       r"on top of|underneath|left of|right of|connected to|linked to|between)\b", re.IGNORECASE)
#: "in Figure 2", "panel B", "in the left half", "on the right", "in the top row": one part of the image.
_PART = re.compile(r"\b(?:figure|fig\.?|panel|box|frame|section|part|picture|image|diagram)\s+(?:\d+|[A-H])\b"
                   r"|\b(?:in|on|at|of)\s+the\s+(?:(?:far\s+)?(?:left|right|top|bottom|upper|lower|middle|centre|"
                   r"center|first|second|third|last)(?:[- ](?:left|right|hand|most))?)"
                   r"(?:\s+(?:half|part|side|corner|panel|row|column|box|frame|section|area|edge))?\b",
                   re.IGNORECASE)


def asks_about_relation(question: str) -> str | None:
    """The words that pick things by how they lie against another ("overlap", "inside", "next to"), else None."""
    return _found(_RELATION, question)


def names_a_part(question: str) -> str | None:
    """The words that keep the question to one part of the image ("Figure 2", "in the left half"), else None."""
    return _found(_PART, question)


def _found(pattern: re.Pattern[str], question: str) -> str | None:
    match = pattern.search(task_text(question)[0] or question)
    return None if match is None else match.group(0)
