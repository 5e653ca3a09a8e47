"""The span answer every reading rule returns, and the small helpers they share.

A rule (``skills.ocr.printed``, ``skills.ocr.opening_hours``, ``skills.ocr.scene_facts``…) answers a question
with one span of the OCR reading. ``PrintedAnswer`` is that span (or what is missing), how sure the recogniser is
of its least legible character, and the evidence features the calibration reads. ``chosen`` turns the spans a rule
found into one answer, or an abstention when several could be meant; ``own_record`` marks a rule whose answers
keep a calibration record of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from PIL import Image

from vision_tools.documents.patterns import UNIT_AFTER
from vision_tools.image import Box
from vision_tools.text import OcrLine
from vision_tools.text.chars import char_scores
from vision_tools.text.ocr import order_lines

STOP_WORDS = frozenset(["a", "an", "the", "is", "are", "to", "of", "for", "on", "in", "at", "it", "this", "that", "what",
                   "which", "how", "far", "away", "does", "do", "sign", "says", "say", "according", "distance",
                   "many", "km", "kilometres", "kilometers", "miles", "mile", "give", "gives", "shown", "written",
                   "printed", "there", "from", "me", "tell", "please", "board", "much", "cost", "costs", "price",
                   # chat: "how far is it to the castle pls", "whats the price", "hw much"
                   "pls", "plz", "whats", "what's", "wat", "hw", "thanks", "thx", "u", "get", "got"])

DISTANCE = re.compile(r"(?<![\w.,/])(\d+(?:[.,/]\d+)?)\s?(km|kilomet(?:re|er)s?|mi|miles?|m|ft|yds?)\b", re.I)

PRICE = re.compile(r"[$€£¥]\s?\d[\d,]*(?:\.\d{1,2})?|\b(?:RM|USD|EUR|GBP)\s?\d[\d,]*(?:\.\d{1,2})?|"
                    # "Roasted on: 12.03.2025": two digits after a point inside a date are no price.
                    r"(?<!\d[./-])\b\d[\d,]*\.\d{2}(?![./-]\d)\s?(?:€|\$|EUR|USD|RM)?(?!\d)"
                    # "Salt 0.08 g": a number with a unit of measure after it is a quantity, not a price.
                    rf"(?!{UNIT_AFTER})", re.I)

@dataclass
class PrintedAnswer:
    """The span answering the question (or None and what is missing), how sure, and the evidence behind it."""

    answer: str | None
    confidence: float
    how: str  # which kind of question and where the span was found, for the trace
    missing: str | None = None
    features: dict[str, float] = field(default_factory=dict)
    #: The reading rule whose answers keep a calibration record of their own ("opening hours"), or None: the span
    #: is judged with OCR's printed spans, which the dev sets label. See ``own_record``.
    rule: str | None = None

    def summary(self) -> str:
        if self.answer is None:
            return f"no span answers it: {self.missing}"
        return f"{self.how} (confidence {self.confidence:.2f})"

    def to_dict(self) -> dict:
        data = {"answer": self.answer, "confidence": self.confidence, "how": self.how, "missing": self.missing,
                "features": dict(self.features)}
        if self.rule is not None:  # the evidence kind (``agents.trust.evidence``): this rule's own record only
            data |= {"field": f"{RULE}{self.rule}", "unchecked": True}
        return data


#: Prefix of the evidence detail of a reading rule with a record of its own (``agents.trust.evidence`` reads it).
RULE = "rule: "


#: The reading rules that keep a record of their own (the names ``own_record`` is called with).
READING_RULES = ("opening hours", "a fact a sign states", "a quantity of the kind asked", "a value beside its name")


def own_record(answer: PrintedAnswer | None, rule: str) -> PrintedAnswer | None:
    """``answer`` marked as a ``rule``'s: it answers only once labelled examples of that rule (rated runs, or an
    evaluation) certify the target precision, never on OCR's pooled record. The rules that read facts off signs and
    labels in the user's words (opening hours, a place's name, a quantity of the kind asked) had none of the dev
    sets' labels behind them, and new wordings showed them well below that record."""
    return None if answer is None else replace(answer, rule=rule)



def row_lines(lines: list[OcrLine]) -> list[OcrLine]:
    """Each visual row as one line: its pieces joined left to right, their boxes united, their least score."""
    rows = []
    for row in order_lines(lines):
        box = Box(min(piece.box.x0 for piece in row), min(piece.box.y0 for piece in row), max(piece.box.x1 for piece in row),
                  max(piece.box.y1 for piece in row))
        rows.append(OcrLine(" ".join(piece.text for piece in row), box, min(piece.confidence for piece in row)))
    return rows



def chosen(hits: list[tuple[str, OcrLine]], image: Image.Image | None, how: str) -> PrintedAnswer:
    spans = list(dict.fromkeys(span for span, _ in hits))
    if not spans:
        return PrintedAnswer(None, 0.0, how, missing=f"no {how.removeprefix('the ')} could be read in the image")
    if len(spans) > 1:
        listed = ", ".join(repr(s) for s in spans[:4])
        return PrintedAnswer(None, 0.0, how, missing=f"several spans could be {how.removeprefix('the ')} "
                                                     f"({listed}) and the question does not say which",
                             features={"span_candidates": float(len(spans))})
    span, line = hits[0]
    score = span_score(image, line, span)
    return PrintedAnswer(span, round(min(0.97, score), 3), f"{how}: {span!r} in {line.text!r}",
                         features={"span_min_char": round(score, 3), "line_confidence": round(line.confidence, 3),
                                   "span_candidates": 1.0})


def span_score(image: Image.Image | None, line: OcrLine, span: str) -> float:
    """The recogniser's score of the span's least legible character; the line's score when it cannot re-read."""
    reading = char_scores(image, line.box) if image is not None else None
    score = reading.span_score(span) if reading is not None else None
    return line.confidence if score is None else score


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def fuzzy_in(word: str, text: str) -> bool:
    return any(SequenceMatcher(None, word, token, autojunk=False).ratio() >= 0.8 for token in words_of(text))
