"""Spans found by what the question names: the price or distance printed beside a named thing, and the words
printed beside a price or distance the question quotes.

"How far is the airport?" is answered from the line that prints AIRPORT, never from the only distance on a sign
that lists several places; "Which town is 12 km away?" from the one line that prints 12 km.
"""

from __future__ import annotations

import calendar
import re

from PIL import Image

from skills.ocr.spans import DISTANCE, PRICE, STOP_WORDS, PrintedAnswer, chosen, fuzzy_in, words_of
from skills.question_text import written_out
from vision_tools.documents.patterns import QUANTITY as _QUANTITY
from vision_tools.text import OcrLine

#: Words of the asking, not of the thing asked about: "how much did the screws cost in total" names the screws, and
#: the receipt's "TOTAL" line is not theirs.
ASKING = frozenset(["did", "was", "were", "will", "would", "paid", "pay", "spent", "spend", "total", "altogether",
                     "overall", "get", "got", "buy", "bought"])


#: Words for the price or distance itself ("the hourly rate", "the entry fee"), not for a thing it belongs to.
_WHAT_IT_IS = frozenset(["rate", "rates", "fee", "fees", "fare", "fares", "charge", "charges", "tariff", "amount",
                         "value", "walk", "drive", "ride"])

#: Units of time a question counts in ("for 3 hours", "2 days"), written out.
_TIME_UNITS = frozenset(["minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "night", "nights",
                         "month", "months"])


def _prints_count(counted: str, text: str) -> bool:
    """Whether ``text`` prints the number and unit ``counted`` ("2 hours": "Up to 2 hours", "2hrs", "2 hour")."""
    number, unit = counted.split()
    stem = re.escape(unit.removesuffix("s")[:3])
    return re.search(rf"(?<![\d.]){number}\s*{stem}", text.lower()) is not None


def near_named(question: str, lines: list[OcrLine], image: Image.Image | None, pattern: re.Pattern[str],
                what: str, pieces: list[OcrLine] | None = None) -> PrintedAnswer | None:
    """The ``pattern`` span on the line naming what the question names ("how far is the airport"), or right under
    it in its column (``pieces``: the reader's own lines, before rows were joined), or the only such span when the
    question names nothing printed."""
    if pattern.search(question):
        return None  # the question quotes such a span itself ("What would 3 coffees at $3.00 cost?"): not a look-up
    if unprinted := _unprinted_periods(question, lines):
        # "How much did I spend on groceries in February?" over this month's budget: another month's amount.
        return PrintedAnswer(None, 0.0, what, missing=f"the question names {', '.join(unprinted)}, which is printed "
                                                      "nowhere in the image")
    hits = [(m.group(0).strip(), line) for line in lines for m in pattern.finditer(line.text)]
    # "for 2 hrs" names "2 hours" as a sign prints it.
    named = [written_out(w) for w in words_of(question) if w not in STOP_WORDS and w not in ASKING and len(w) > 2]
    # "for 2 hrs": the number and its unit together, which only the line printing both names ("Up to 2 hours").
    counted = [f"{n} {written_out(w)}" for n, w in re.findall(r"\b(\d+)\s*([a-z]+)\b", question.lower())
               if written_out(w) != w or w in _TIME_UNITS]
    if counted and hits:
        holding = [(span, line) for span, line in hits if all(_prints_count(c, line.text) for c in counted)]
        if not holding:
            return PrintedAnswer(None, 0.0, what, missing=f"the question names {', '.join(counted)}, which no line "
                                                          f"with a {what} prints")
        hits = holding
    if named and hits:
        matched = {id(line): sum(fuzzy_in(w, line.text) for w in named) for _, line in hits}
        most = max(matched.values(), default=0)
        # "the rose garden" is the line printing both words, not "Japanese Garden" printing one of them.
        lined = [(span, line) for span, line in hits if most and matched[id(line)] == most]
        # "a city bike for a full day": "City bike £4" names the bike, and "Full day" is printed on another line,
        # whose price may be the one asked (a table's rows drift apart on a tilted sign).
        elsewhere = [w for w in named if not any(fuzzy_in(w, line.text) for _, line in lined)
                     and any(fuzzy_in(w, line.text) for line in lines)]
        # "the electricity cost in march" over a line "Annual electricity cost: €1,146" and a tick "Mar": the month
        # is printed, but not with that price.
        elsewhere += [m for m in _months_named(question)
                      if not any(re.search(rf"\b{m[:3]}", line.text.lower()) for _, line in lined)]
        # "the bus station" over "Railway Station 10 km": the line names one of the words, and the other ("bus") is
        # printed nowhere, so its distance may be another place's.
        # A word after the last one printed is what the thing is ("a student ticket" over "Student €9.50"): it
        # names no other thing.
        last = max((i for i, w in enumerate(named) if any(fuzzy_in(w, line.text) for _, line in lined)), default=-1)
        nowhere = [w for i, w in enumerate(named) if i < last and w not in _WHAT_IT_IS
                   and not any(fuzzy_in(w, line.text) for line in lines)]
        if lined and nowhere and most < len(named):
            return PrintedAnswer(None, 0.0, what, missing=f"the question names {' '.join(nowhere)}, printed nowhere, so "
                                                          f"the {what} beside the other words may be another's")
        if lined and elsewhere:
            return PrintedAnswer(None, 0.0, what, missing=f"the question names {' '.join(elsewhere)}, printed on "
                                                          f"another line than the {what} found beside the rest")
        if lined:
            return chosen(lined, image, f"the {what} on the line naming {' '.join(named)}")
        naming = [i for i, line in enumerate(lines) if any(fuzzy_in(w, line.text) for w in named)]
        if naming:
            # Every named word printed, and between the naming line and the span's own line nothing but other
            # bare values ("NET WT 500 g"): no other name the span could belong to ("AIRPORT / HOTEL / 500 m").
            every = all(any(fuzzy_in(w, line.text) for line in lines) for w in named)
            columns = pieces or lines
            under = under_a_name(named, columns, [(m.group(0).strip(), line) for line in columns
                                                  for m in pattern.finditer(line.text)])
            # "a large latte" over a grid: "Large" heads a column whose first price is the Americano's, and "Latte"
            # heads a row of prices. A named word missing from the naming line may be printed only where no such
            # span is (a board's title, "SPARKLE CAR WASH"), never on a row of its own spans.
            if under and any(not fuzzy_in(w, naming_line.text) and any(fuzzy_in(w, row.text) and pattern.search(row.text)
                                                                       for row in lines)
                             for _, naming_line in under for w in named):
                under = []
            if every and len(under) == 1:
                # A price tag, a column of a price board: the name, and its price printed right under it.
                return chosen([under[0][0]], image, f"the {what} printed under {' '.join(named)}")
            bare = [(span, line) for span, line in hits if _bare(line.text, span)
                    and _only_values_between(lines, naming[-1], lines.index(line))]
            if every and len({span for span, _ in hits}) == 1 and bare and not _share_beside(lines, naming):
                # The one such span, on a line of its own ("Price: $6.49" under the product's name): the whole
                # label's, so the named thing's.
                return chosen(bare, image, f"the only {what} printed, on a line of its own")
            return PrintedAnswer(None, 0.0, what, missing=f"{' '.join(named)} is printed, but no {what} beside it")
        # "this ticket", "this bottle" is the image itself, not a thing named in it.
        itself = set(re.findall(r"\b(?:this|these)\s+([a-z]+)", question.lower()))
        things = [w for w in named if w not in itself]
        if hits and things and not any(fuzzy_in(w, line.text) for w in things for line in lines):
            # "how much is the fine if I overstay?" over a parking sign's one price, its hourly rate: the question
            # names things the image prints nowhere, so the one price printed may be another thing's.
            return PrintedAnswer(None, 0.0, what, missing=f"the question names {' '.join(things)}, printed nowhere "
                                                          f"in the image, so the {what} printed may be another's")
    return chosen(hits, image, f"the {what} printed")


#: "Which town is 12 km away?", "What costs $3.50?": a question that quotes a span and asks what is printed with it.
_ASKS_WHAT_HAS = re.compile(r"^\W*(?:which|what)\b", re.I)
#: Words that may stand right before the quoted span ("is 12 km", "costs $3.50", "priced at $2") and the only
#: words that may follow it ("away", "from here"): any other wording does something with the span.
_BEFORE_SPAN = re.compile(r"\b(?:is|are|lies|costs?|for|at)\s*$", re.I)
_AFTER_SPAN = re.compile(r"^\s*(?:away|from here|ahead|off|each|a piece|only)?\s*[?.!]*\s*$", re.I)


def named_beside(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """The words printed on the one line that carries the distance or price the question quotes, or None when the
    question quotes none."""
    if not _ASKS_WHAT_HAS.search(question):
        return None
    for pattern, what in ((DISTANCE, "distance"), (PRICE, "price")):
        found = list(pattern.finditer(question))
        quoted = {_squeezed(m.group(0)) for m in found}
        if len(quoted) != 1:
            continue
        first, last = found[0], found[-1]
        if not (_BEFORE_SPAN.search(question[:first.start()]) and _AFTER_SPAN.match(question[last.end():])):
            return None  # "What would 3 coffees at $3.00 cost?", "What is 5 km in miles?"
        asked = quoted.pop()
        hits = [(line, m) for line in lines for m in pattern.finditer(line.text) if _squeezed(m.group(0)) == asked]
        if len(hits) != 1:
            return PrintedAnswer(None, 0.0, what, missing=f"{asked} is printed {len(hits) or 'no'} times; the "
                                                          f"question needs the one line that carries it")
        line, match = hits[0]
        rest = line.text[:match.start()] + " " + line.text[match.end():]
        words = re.findall(r"[A-Za-z0-9][\w'&.-]*", rest)
        if not any(re.search(r"[A-Za-z]", w) for w in words) or len(pattern.findall(rest)):
            return PrintedAnswer(None, 0.0, what, missing=f"nothing else is printed beside {asked} on its line")
        return chosen([(" ".join(words), line)], image, f"the words printed beside {asked}")
    return None


def _squeezed(span: str) -> str:
    return re.sub(r"\s+", "", span).casefold()


#: Words a line may print beside a span and still be that span's line alone ("Price: $6.49", "Net wt 500 g").
_SPAN_LABELS = frozenset(["price", "only", "now", "each", "per", "net", "wt", "weight", "distance", "ahead", "approx",
                          "lb", "kg", "g", "pound", "mile", "miles", "km", "mi", "m", "ft"])


#: Month names in full ("May" is a verb too, and is left out).
_MONTHS = tuple(name.lower() for name in calendar.month_name if name and name != "May")


def _months_named(question: str) -> list[str]:
    """The months ``question`` names in full ("in march"; ``_MONTHS`` leaves out May, as often a verb)."""
    return [m for m in _MONTHS if re.search(rf"\b{m}\b", question.lower())]


def _unprinted_periods(question: str, lines: list[OcrLine]) -> list[str]:
    """Months and quarters ("February", "Q2") the question names that the image prints nowhere."""
    printed = " ".join(line.text for line in lines).lower()
    asked = question.lower()
    months = [m.capitalize() for m in _MONTHS if re.search(rf"\b{m}\b", asked)
              and not re.search(rf"\b{m[:3]}", printed)]
    quarters = [q.upper() for q in dict.fromkeys(re.findall(r"\b([qh][1-4])\b", asked))
                if not re.search(rf"\b{q}\b", printed)]
    return months + quarters


_PERCENT = re.compile(r"\d+(?:[.,]\d+)?\s*%")


def _share_beside(lines: list[OcrLine], naming: list[int]) -> bool:
    """Whether a line naming the thing carries a percentage, or is followed by one on its own ("Rent" over "38%"
    on a budget donut): the thing's own value is that share, and the one bare price elsewhere ("€2,400" in the
    hole) is the whole's."""
    for i in naming:
        below = lines[i + 1].text if i + 1 < len(lines) else ""
        if _PERCENT.search(lines[i].text) or _PERCENT.fullmatch(below.strip()):
            return True
    return False


def _only_values_between(lines: list[OcrLine], named: int, span: int) -> bool:
    """Whether the span's line comes after the naming line with only values or details between them: bare values
    (weights, prices, distances), a labelled detail ("Single origin: Colombia") or a line carrying a number
    ("250 g · Roasted 2024", "Acidity 0.3%"). A line of words alone may name another thing the span is for."""
    if span <= named:
        return False
    return all(_bare(line.text, "") or any(_bare(line.text, m.group(0)) for p in (PRICE, _QUANTITY, DISTANCE)
                                            for m in p.finditer(line.text)) or _is_detail(line.text)
               for line in lines[named + 1:span])


def _is_detail(text: str) -> bool:
    """A detail of the named thing rather than another thing's name: a label with its value ("Single origin:
    Colombia"), or a number with at most one word ("Harvest 2022", "250 g · Roasted 2024"). "Beeswax Candles (pack
    of 6)" names another product."""
    if re.match(r"^[^:]{2,30}:\s*\S", text):
        return True
    return bool(re.search(r"\d", text)) and len([w for w in re.findall(r"[A-Za-z]{3,}", text)]) <= 1


def _bare(text: str, span: str) -> bool:
    """Whether ``text`` prints ``span`` with no other word than a label of it."""
    rest = text.replace(span, " ") if span else text
    return all(word in _SPAN_LABELS for word in words_of(rest) if not word.isdigit())


#: How far under a name (in the name's own line heights) its value may be printed.
_UNDER_GAP = 3.0


def under_a_name(named: list[str], lines: list[OcrLine],
                 hits: list[tuple[str, OcrLine]]) -> list[tuple[tuple[str, OcrLine], OcrLine]]:
    """The spans printed right under a line that names the most of ``named``, each with that naming line: the next
    line down in its column, holding one span and nothing but what a price says of itself ("£3.20", "£2.40 per
    kg"). One per naming line that has one; the caller wants exactly one."""
    counts = [sum(fuzzy_in(w, line.text) for w in named) for line in lines]
    most = max(counts, default=0)
    found: list[tuple[tuple[str, OcrLine], OcrLine]] = []
    for i, line in enumerate(lines):
        if not most or counts[i] != most:
            continue
        below = _next_in_column(lines, line)
        spans = [(span, hit) for span, hit in hits if hit is below]
        if below is not None and len(spans) == 1 and _price_alone(below.text, spans[0][0]):
            found.append((spans[0], line))
    return found


#: Words a price may carry on its own line and still be the price alone ("£2.40 per kg", "only £3", "£5 each").
_WITH_A_PRICE = frozenset(["per", "each", "ea", "only", "now", "from", "just", "dozen", "half", "kg", "g", "lb",
                           "lbs", "oz", "jar", "pack", "bunch", "bag", "box", "punnet", "bottle", "loaf", "pot", "tray",
                           "litre", "liter", "l", "ml", "item", "piece", "pc", "pcs", "price"])


def _price_alone(text: str, span: str) -> bool:
    """Whether ``text`` prints ``span`` with nothing else but what a price says of itself: no other number ("3 @
    1.20" is a quantity's line) and no word naming something else ("PEARS $2.49")."""
    rest = text.replace(span, " ", 1)
    return not re.search(r"\d|@", rest) and all(w in _WITH_A_PRICE for w in words_of(rest))


def _next_in_column(lines: list[OcrLine], line: OcrLine) -> OcrLine | None:
    """The nearest line under ``line`` that shares its column (half the narrower box's width across), within
    ``_UNDER_GAP`` of its height."""
    box = line.box
    height = max(1.0, box.y1 - box.y0)
    best: OcrLine | None = None
    for other in lines:
        gap = other.box.y0 - box.y1
        overlap = min(box.x1, other.box.x1) - max(box.x0, other.box.x0)
        narrower = min(box.x1 - box.x0, other.box.x1 - other.box.x0)
        if other is line or gap < -0.3 * height or gap > _UNDER_GAP * height or overlap < 0.5 * narrower:
            continue
        if best is None or other.box.y0 < best.box.y0:
            best = other
    return best


#: "Which is cheaper: the Flat White or the Banana Bread?", "what costs more, apples or pears"
CHEAPER_Q = re.compile(r"\b(?:which|what)\b[^?]{0,30}?\b(?P<how>cheaper|cheapest|less expensive|more expensive|"
                       r"pricier|dearer|costs? (?:more|less))\b[,:]?\s+(?:the\s+)?(?P<a>[^?,]+?)\s+or\s+"
                       r"(?:the\s+)?(?P<b>[^?,]+?)\s*\??\s*$", re.I)
#: A number of things in a name compared ("2 adult tickets", "a pair of", "three singles").
_SEVERAL = re.compile(r"\d|\b(?:two|three|four|five|six|pair|couple|dozen|both|several|multiple)\b", re.I)
#: What a price is for, as printed beside it: "per kg", "/dozen", "each".
_PER = re.compile(r"\bper\s+([a-z]+)|/\s*([a-z]+)|\b(each|ea)\b", re.I)


def compare_prices(match: re.Match[str], lines: list[OcrLine], image: Image.Image | None,
                   pieces: list[OcrLine]) -> PrintedAnswer:
    """Which of two named things costs less (more), from the price printed beside or under each, in the
    question's own words; none when either price is not read, they are for different amounts ("per kg" and
    "each"), in different currencies, or equal."""
    names = [match.group("a").strip(" '\""), match.group("b").strip(" '\"")]
    what = f"the prices of {names[0]} and {names[1]}"
    if any(_SEVERAL.search(name) for name in names):
        # "2 adult tickets or a family ticket": a price times a number, which no price printed is.
        return PrintedAnswer(None, 0.0, what, missing="the question counts several of one thing, and the tools "
                                                      "compare the prices as printed, each for one")
    found = [near_named(f"how much is {name}", lines, image, PRICE, "price", pieces) for name in names]
    read = [r for r in found if r is not None and r.answer is not None]
    if len(read) < 2:
        gone = next(n for n, r in zip(names, found, strict=True) if r is None or r.answer is None)
        return PrintedAnswer(None, 0.0, what, missing=f"no one price is read for {gone}")
    spans = [r.answer or "" for r in read]
    amounts = [_amount(span) for span in spans]
    currencies = {re.sub(r"[\d.,\s]", "", span) for span in spans}
    units = {_unit_of(span, pieces or lines) for span in spans}
    if None in amounts or len(currencies) > 1 or len(units) > 1 or amounts[0] == amounts[1]:
        return PrintedAnswer(None, 0.0, what, missing=f"the prices read ({spans[0]}, {spans[1]}) are not two "
                                                      "amounts of one currency for the same quantity")
    dearer = match.group("how").lower() in ("more expensive", "pricier", "dearer", "cost more", "costs more")
    first = (amounts[0] > amounts[1]) == dearer  # type: ignore[operator]
    return PrintedAnswer(names[0] if first else names[1], round(min(r.confidence for r in read), 3),
                         f"{what}: {spans[0]} and {spans[1]}", features={"span_candidates": 1.0})


def _amount(span: str) -> float | None:
    """The amount a price prints: "$1,299" is 1299, "1.299,00 €" 1299.0, "£3.50" 3.5, "9,45 €" 9.45."""
    number = re.search(r"\d[\d.,]*", span)
    if number is None:
        return None
    digits = number.group(0).rstrip(".,")
    marks = [i for i, ch in enumerate(digits) if ch in ".,"]
    if not marks:
        return float(digits)
    last = marks[-1]
    decimals = len(digits) - last - 1
    whole = re.sub(r"[.,]", "", digits[:last])
    if decimals in (1, 2):
        return float(f"{whole}.{digits[last + 1:]}")
    return float(re.sub(r"[.,]", "", digits)) if decimals == 3 else None


def _unit_of(span: str, lines: list[OcrLine]) -> str | None:
    """What the price ``span`` is for, as its line prints it after it or the short line under it ("per kg"), or
    None when neither says."""
    line = next((line for line in lines if span in line.text), None)
    if line is None:
        return None
    per = _PER.search(line.text.split(span, 1)[1])
    under = _next_in_column(lines, line)
    if per is None and under is not None and len(under.text.split()) <= 3:
        per = _PER.match(under.text.strip())
    return next((g.lower() for g in per.groups() if g), None) if per else None
