"""Evidence features of a receipt field read by the key-information tool, and how far they lower its confidence.

The tool's confidence comes from line scores and the layout; the misreadings that slipped through it were one
wrong letter in a street word or a company suffix, an accent the receipt does not have, or a code taken for the
address (``vision_tools.documents.checks``). ``field_features`` measures those signs and the recogniser's score
of the value's least legible word (``vision_tools.text.chars``); ``evidence_factor`` turns them into the factor
the confidence is multiplied by. The features also travel in ``SkillResult.features`` for the calibrator.
"""

from __future__ import annotations

import re

from PIL import Image

from vision_tools.documents import FieldAnswer
from vision_tools.documents.checks import (
    address_shape,
    ends_open,
    foreign_code,
    leads_with_code,
    leads_with_name,
    lookalike_digits,
    near_miss_words,
    reads_as_address,
    truncated_words,
    unusual_accents,
)
from vision_tools.text.chars import char_scores

#: Confidence kept per sign of a misreading (a near-miss word, an accent the page does not have).
MISREAD_FACTOR = 0.5
#: Confidence kept for an address of half an address's shape (a number or a place word, not both), and none.
SHAPE_FACTORS = {1.0: 1.0, 0.5: 0.6, 0.0: 0.2}
#: A word of the value whose least legible character scores below this lowers the confidence in proportion.
LEGIBLE = 0.9
_TOKEN = re.compile(r"[A-Za-z0-9À-ÿ]{2,}")
#: Fields whose value is free text the checks apply to (totals and dates have their own format checks).
CHECKED = ("company", "address")


def field_features(image: Image.Image | None, field: FieldAnswer, page_text: str) -> dict[str, float]:
    """Features of ``field`` (a read company name or address): near-miss words, unusual accents, address shape,
    and the least legible word's score when the lines can be read again."""
    if field.value is None or field.field not in CHECKED:
        return {}
    value = field.value
    features = {"near_miss_words": float(len(near_miss_words(value, field.field))),
                "unusual_accents": float(unusual_accents(value, page_text)),
                "tool_confidence": round(field.confidence, 4)}
    if field.field == "company":
        features["lookalike_digits"] = float(lookalike_digits(value))
        features["leads_with_code"] = float(leads_with_code(value))
        features["reads_as_address"] = float(reads_as_address(value))
    if field.field == "address":
        features["truncated_words"] = float(truncated_words(value))
        features["address_shape"] = address_shape(value)
        features["foreign_code"] = float(foreign_code(value))
        features["ends_open"] = float(ends_open(value))
        features["leads_with_name"] = float(leads_with_name(value))
    weakest = _weakest_word(image, field) if image is not None else None
    if weakest is not None:
        features["min_word_char"] = round(weakest, 4)
    return features


def evidence_factor(features: dict[str, float]) -> float:
    """The share of the tool's confidence the features leave (1 when nothing looks misread)."""
    factor = MISREAD_FACTOR ** (features.get("near_miss_words", 0.0) + features.get("unusual_accents", 0.0))
    factor *= SHAPE_FACTORS.get(features.get("address_shape", 1.0), 1.0)
    signs = ("foreign_code", "ends_open", "leads_with_name", "lookalike_digits", "leads_with_code",
             "reads_as_address", "truncated_words")
    factor *= MISREAD_FACTOR ** sum(features.get(name, 0.0) for name in signs)
    weakest = features.get("min_word_char")
    if weakest is not None and weakest < LEGIBLE:
        factor *= weakest / LEGIBLE
    return factor


def _weakest_word(image: Image.Image, field: FieldAnswer) -> float | None:
    """The lowest, over the value's words found in a re-read of its lines, of each word's least legible
    character; None when no line could be re-read."""
    readings = [r for r in (char_scores(image, box) for box in field.boxes) if r is not None]
    if not readings:
        return None
    scores = []
    for token in _TOKEN.findall(field.value or ""):
        found = [s for s in (r.span_score(token) for r in readings) if s is not None]
        if found:
            scores.append(max(found))
    return min(scores) if scores else None
