"""Values a question asks for by the name printed beside them: "What time is boarding?", "When does the flight
depart?", "How much fat does this milk have?", "What's the salt content?".

A sign or label prints a name ("Boarding", "Fat", "Salt") with its value on the same row or under it. The question
names the event or the nutrient; the value must be of the kind asked (a time for "what time" and "when does … depart",
an amount — a weight, a volume, a percentage, kcal — for "how much fat"), or there is no answer. Only one value of
that kind beside the name answers: two, and the question does not say which.
"""

from __future__ import annotations

import re

from PIL import Image

from skills.ocr.spans import PrintedAnswer, chosen
from skills.ocr.spans_by_name import near_named
from skills.question_text import task_text
from vision_tools.documents.labels import MONEY_WORDS, find_label_value
from vision_tools.documents.layout import Layout
from vision_tools.documents.patterns import QUANTITY, TIME
from vision_tools.text import OcrLine

_EVENT = r"(board(?:ing|s)?|depart(?:ure|s)?|leav(?:e|es|ing)|arriv(?:e|es|al)|gates? clos(?:e|es|ing)|" \
         r"check-?in)"
#: "What time is boarding?", "When does the flight depart?", "boarding time?", "What time do the gates close?"
_TIME_Q = re.compile(rf"\bwhat time (?:is|does|do|will)?\s*(?:the |my |our )?(?:\w+ )?{_EVENT}\b"
                     rf"|\bwhen (?:is|does|do|will)\s+(?:the |my |our )?(?:\w+ )?{_EVENT}\b|\b{_EVENT} time\b", re.I)
#: One stem per event, as labels print it (``vision_tools.documents.labels.SYNONYMS`` holds the other spellings).
_STEMS = (("board", "boarding"), ("depart", "departure"), ("leav", "departure"), ("arriv", "arrival"),
          ("gate", "gate closes"), ("check", "check in"))
#: "How much fat does this milk have?", "How much protein per 100 g?", "What's the salt content?"
_AMOUNT_Q = re.compile(r"\bhow much (?P<noun>[a-z]{3,})\b|\b(?:what(?:'s| is) the )(?P<noun2>[a-z]{3,}) content\b",
                       re.I)
#: "How much oil is in the bottle?", "How much juice does the carton hold?": the pack's content, a weight or volume.
_CONTAINER = re.compile(r"\b(?:in|inside)\s+(?:the|this|a|each|one)\s+(?:bottle|can|jar|pack|packet|box|bag|carton|"
                        r"tin|tub|tube|jug|container|package|pouch|sachet)\b|\b(?:bottle|can|jar|pack|packet|box|"
                        r"bag|carton|tin|tub|container|package)\s+(?:hold|holds|contain|contains)\b", re.I)
_NOT_A_NAME = frozenset(["does", "did", "is", "was", "are", "were", "will", "would", "do", "can", "should", "more",
                         "less", "longer", "bigger", "smaller", "money", "time", "this", "that", "the"])
_AMOUNT = re.compile(r"(?<![\w.,/])\d+(?:[.,]\d+)?\s?(?:%|kcal|kj|mg|g|kg|ml|cl|l)(?![\w%])", re.I)


def asks_for_named_value(question: str) -> bool:
    """Whether ``question`` asks for a time or an amount by the name printed beside it (cheap: its words only)."""
    stem = task_text(question)[0] or question
    return bool(_TIME_Q.search(stem)) or _amount_name(stem) is not None


def named_value(question: str, lines: list[OcrLine], image: Image.Image) -> PrintedAnswer | None:
    """The time or amount printed beside the name the question gives, or None when it asks for neither."""
    stem = task_text(question)[0] or question
    if not lines:
        return None
    event = _TIME_Q.search(stem)
    if event is not None:
        return _time_of(next(g for g in event.groups() if g), lines, image)
    noun = _amount_name(stem)
    if noun is not None:
        if _CONTAINER.search(stem):  # "How much oil is in the bottle?": the bottle's volume, not the acidity's %
            return near_named(noun, lines, image, QUANTITY, f"amount of {noun}")
        return near_named(noun, lines, image, _AMOUNT, f"amount of {noun}")
    return None


def _amount_name(stem: str) -> str | None:
    match = _AMOUNT_Q.search(stem)
    if match is None:
        return None
    noun = (match.group("noun") or match.group("noun2")).lower()
    return None if noun in _NOT_A_NAME or noun in MONEY_WORDS else noun


def _time_of(event: str, lines: list[OcrLine], image: Image.Image) -> PrintedAnswer:
    label = next((name for stem, name in _STEMS if event.lower().startswith(stem)), event.lower())
    layout = Layout.of(lines, image.size)
    found = find_label_value(layout, f"{label} time")
    times = [m.group(0).strip() for m in TIME.finditer(found.value or "")]
    if len(times) != 1:
        why = found.missing or f"the value beside '{found.label}' is not one time"
        return PrintedAnswer(None, 0.0, f"the {label} time", missing=why)
    line = next((p.line for p in layout.lines if p.line.box.as_list() == found.boxes[0].as_list()), lines[0]) \
        if found.boxes else lines[0]
    return chosen([(times[0], line)], image, f"the time {found.how}")
