"""Questions answered by a printed quantity of the kind asked, or by comparing printed prices:

- a measure named by what it measures: "What voltage is stated on the sign?" ("11,000 VOLTS"), "What's the max
  height?" ("3.2 m"), "How hot is the water?" ("60 °C"); only spans in that measure's units count;
- how long: "How long can I park here?" (a duration; one beside "max", "limit" or "stay" wins over the others);
- how many things a pack holds, printed with the count: "How many tablets are in the box?" ("16 tablets",
  "Eggs x12"), never a dose printed in the directions ("1-2 tablets every 4 hours");
- which item costs most or least: "What's the most expensive item on the board?", "Which item was the cheapest?":
  the name on the row of the highest (lowest) price, among rows of one price and a name (never a total, tax,
  change or an add-on "+£0.40").

Each answers only with one span of the kind asked; two, and the question does not say which, give no answer.
"""

from __future__ import annotations

import re

from PIL import Image

from skills.ocr.spans import PRICE, PrintedAnswer, chosen, row_lines
from skills.question_text import task_text
from vision_tools.text import OcrLine

_NUMBER = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?"
#: What a question asks to measure, and the units that measure is printed in.
_MEASURES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\bvoltage\b|\bvolts?\b|\bhow many v\b", re.I),
     re.compile(rf"{_NUMBER}\s?(?:kv|v|volts?|kilovolts?)\b", re.I)),
    (re.compile(r"\btemperature\b|\bhow (?:hot|cold|warm)\b|\bdegrees\b", re.I),
     re.compile(rf"[-+−]?{_NUMBER}\s?°\s?[cf]?|[-+−]?{_NUMBER}\s?(?:degrees|deg)\b", re.I)),
    (re.compile(r"\b(?:max(?:imum)?\s+)?(?:height|clearance|headroom)\b|\bhow (?:tall|high|low)\b", re.I),
     re.compile(rf"{_NUMBER}\s?(?:m|metres?|meters?|ft|feet)\b|\d+\s?'\s?\d*\"?", re.I)),
    (re.compile(r"\b(?:wattage|power)\b|\bhow many watts\b", re.I),
     re.compile(rf"{_NUMBER}\s?(?:w|kw|watts?|kilowatts?)\b", re.I)),
    (re.compile(r"\b(?:speed|how fast)\b", re.I),
     re.compile(rf"{_NUMBER}\s?(?:mph|km/h|kmh|kph|km/hr)\b", re.I)),
)
_HOW_LONG = re.compile(r"\bhow long\b|\bfor how many (?:hours|minutes)\b|\bmax(?:imum)? stay\b", re.I)
_DURATION = re.compile(rf"{_NUMBER}\s?(?:hours?|hrs?|h|minutes?|mins?|days?)\b", re.I)
#: A duration beside these words is a limit ("2 HOURS MAX"), not a condition ("No return within 1 hour").
_LIMIT = re.compile(r"\b(?:max(?:imum)?|limit(?:ed)?|stay|up to)\b", re.I)
#: "How many tablets are in the box?", "How many eggs?", "how many capsules does the pack hold"
_HOW_MANY = re.compile(r"^\W*how many (?P<noun>[a-z]{3,})\s*(?:(?:are|come|is)\s+(?:there\s+)?(?:in|inside)\s+"
                       r"(?:the|this|a|each|one)\s+\w+|(?:does|do)\s+(?:the|this|a|each)\s+\w+\s+(?:contain|hold|"
                       r"have)|in\s+(?:the|this|a|each)\s+(?:pack|packet|box|bag|carton|tin|jar|bottle|tube))?\s*\??\s*$",
                       re.I)
#: A count on a row of directions is a dose ("1-2 tablets every 4 hours", "no more than 8 tablets"), not the pack's.
_DOSE = re.compile(r"\b(?:every|take|taken|daily|a day|per day|than|max(?:imum)?|up to|doses?|hours?)\b", re.I)
_PRICIEST = re.compile(r"\b(?:most expensive|priciest|costs? the most|highest price(?:d)?|dearest)\b", re.I)
_CHEAPEST = re.compile(r"\b(?:cheapest|least expensive|costs? the least|lowest price(?:d)?)\b", re.I)
#: Rows of a receipt or menu that price no item.
_NOT_ITEMS = re.compile(r"\b(?:total|sub-?total|tax|vat|gst|sst|cash|card|change|paid|balance|due|amount|"
                        r"discount|save|tip|rounding|deposit|tendered|visa|mastercard)\b", re.I)


def asks_for_quantity(question: str) -> bool:
    """Whether ``question`` asks for one of this module's quantities (cheap: its words only)."""
    stem = task_text(question)[0] or question
    return any(asked.search(stem) for asked, _ in _MEASURES) or bool(
        _HOW_LONG.search(stem) or _HOW_MANY.search(stem) or _PRICIEST.search(stem) or _CHEAPEST.search(stem))


def quantity_answer(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """The quantity or the item the question asks for; None when it asks for none of them."""
    stem = task_text(question)[0] or question
    if not lines:
        return None
    rows = row_lines(lines)
    if _PRICIEST.search(stem) or _CHEAPEST.search(stem):
        return _priced_item(rows, image, highest=bool(_PRICIEST.search(stem)))
    for asked, units in _MEASURES:
        if asked.search(stem) and not units.search(stem):
            hits = [(m.group(0).strip(), row) for row in rows for m in units.finditer(row.text)]
            return chosen(hits, image, "the measure printed in the units asked") if hits else None
    if _HOW_LONG.search(stem):
        hits = [(m.group(0).strip(), row) for row in rows for m in _DURATION.finditer(row.text)]
        limits = [(span, row) for span, row in hits if _LIMIT.search(row.text)]
        return chosen(limits or hits, image, "the time limit printed" if limits else "the duration printed") \
            if hits else None
    many = _HOW_MANY.search(stem)
    if many:
        return _counted(many.group("noun").lower(), rows, image)
    return None


def _counted(noun: str, rows: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """The count printed with the noun: "16 tablets", "12 eggs", "Eggs x12"."""
    stem = noun[:-3] + "y" if noun.endswith("ies") else noun.rstrip("s")
    spelled = rf"{re.escape(stem)}(?:s|es)?|{re.escape(noun)}"
    pattern = re.compile(rf"(?<![\w.,])(\d+)\s*(?:x\s*)?(?:{spelled})\b|\b(?:{spelled})\s*x\s*(\d+)\b", re.I)
    hits = [(m.group(1) or m.group(2), row) for row in rows for m in pattern.finditer(row.text)
            if not _DOSE.search(row.text) and not re.search(r"\d\s*[-–]\s*$", row.text[:m.start()])]
    return chosen(hits, image, f"the number of {noun} printed") if hits else None


def _priced_item(rows: list[OcrLine], image: Image.Image | None, highest: bool) -> PrintedAnswer | None:
    """The name on the row with the highest (lowest) price, among rows of one price and a name."""
    items: list[tuple[float, str, OcrLine]] = []
    for row in rows:
        prices = list(PRICE.finditer(row.text))
        if len(prices) != 1 or _NOT_ITEMS.search(row.text) or row.text[:prices[0].start()].rstrip().endswith("+"):
            continue
        name = (row.text[:prices[0].start()] + " " + row.text[prices[0].end():]).strip(" .:-–—·•")
        value = float(re.sub(r"[^\d.]", "", prices[0].group(0).replace(",", "")) or "nan")
        if re.search(r"[A-Za-z]{2,}", name) and value == value:
            items.append((value, " ".join(name.split()), row))
    if len(items) < 2:
        return None
    items.sort(key=lambda item: item[0], reverse=highest)
    what = "most expensive" if highest else "cheapest"
    if items[0][0] == items[1][0]:
        return PrintedAnswer(None, 0.0, f"the {what} item", missing=f"{items[0][1]} and {items[1][1]} cost the same")
    settled = chosen([(items[0][1], items[0][2])], image, f"the {what} of {len(items)} priced rows")
    settled.features["priced_rows"] = float(len(items))
    return settled
