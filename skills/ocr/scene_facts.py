"""Facts a sign or a label states in words rather than beside a label, found by what the question asks for:

- where a product is from: the country printed beside "Product of", "Made in", "Origin" ("Which country is it
  from?" on a label printing "Product of Greece");
- where a train or a bus goes: the place after "to" on the line naming it ("Trains to Leeds");
- whose name is on a door: the one name printed with a title ("Dr. Elena Marsh");
- what a shop, a street or a station is called: the one short line of capitalised words that includes the noun
  asked about ("Hartley's Bakery" for "Name of the bakery?");
- which day something is on: the weekday on the line naming it, or under it ("Office hours:" over "Tue 10:00-12:00");
- when something happens: the one time on the line naming it ("Back at 2:30 PM" for "When will they be back?");
- which of two places is closer, from the distance printed beside each ("Is Ashford closer than Dover?"), and
  how many places a direction sign lists (the rows printing a place with its distance).

Each rule answers only with one span of the asked kind; two different spans, and the question does not say which,
give no answer. Opening and closing times are read by ``skills.ocr.opening_hours``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import pycountry
from PIL import Image

from skills.ocr.opening_hours import DAY_SPANS as _WEEKDAYS
from skills.ocr.printed import PRESENT, best_match
from skills.ocr.spans import (
    DISTANCE,
    STOP_WORDS,
    PrintedAnswer,
    chosen,
    fuzzy_in,
    row_lines,
    span_score,
    words_of,
)
from skills.question_text import task_text
from vision_tools.documents.patterns import TIME
from vision_tools.text import OcrLine

_COUNTRY_Q = re.compile(r"\b(?:which|what)\s+country\b[^?]*\b(?:from|made|grown|produced|come|comes|origin)\b"
                        r"|\bcountry\s+of\s+origin\b|\borigin\b"
                        r"|\bwhere\b[^?]{0,40}\b(?:from|made|grown|produced|come|comes)\s*\??\s*$", re.I)
#: Words a line prints with a product's country ("Product of Greece", "Single origin: Colombia", "Made in Italy").
_ORIGIN_CUE = re.compile(r"\b(?:origin|product\s+of|produce\s+of|produced\s+in|made\s+in|grown\s+in|imported\s+from|"
                         r"manufactured\s+in|sourced\s+from|harvested\s+in|country)\b", re.I)
#: Names people print that are not ISO country names.
_MORE_COUNTRIES = ("England", "Scotland", "Wales", "Northern Ireland", "UK", "U.K.", "USA", "U.S.A.", "Holland",
                   "Great Britain", "Russia", "South Korea", "Vietnam", "Iran", "Syria", "Bolivia", "Venezuela",
                   "Tanzania", "Taiwan", "Ivory Coast", "Czech Republic", "Laos")
_WHERE_TO_Q = re.compile(r"\bwhere\b[^?]{0,50}\b(?:go|goes|going|head|heading|headed|bound|travel|run|runs)\b", re.I)
_TO_PLACE = re.compile(r"(?<!welcome )\b(?:to|for|towards)\s+(?P<place>(?!(?:Platform|Gate|Stand|Bay|Track|Stop|"
                       r"Via|Departs|Next)\b)[A-Z][\w'.-]*(?:\s+(?!(?:Platform|Gate|Stand|Bay|Track|Stop|Via|"
                       r"Departs|Next)\b)[A-Z][\w'.-]*){0,2})")
#: A "to" that says where something moved, not where it goes ("Bus stop moved to Church Street").
_NOT_BOUND = re.compile(r"\b(?:moved|diverted|relocated|transferred|changed|closed|welcome|return|returned)\b", re.I)
_WHO_Q = re.compile(r"\bwhose\b|^\W*who\b", re.I)
_TITLED = re.compile(r"\b(?:Dr|Prof|Mr|Mrs|Ms|Miss|Mx|Sir|Dame|Rev|Capt)\.?\s+[A-Z][\w'-]*\.?(?:\s+[A-Z][\w'-]*){0,3}")
#: "Whose office is this?": a door plate's owner.
_WHOSE_PLACE = re.compile(r"\bwhose\s+(?:office|room|desk|door|house|locker|studio|workspace|surgery|clinic)\b", re.I)
#: "Who is the pharmacist on duty?": the role the question names.
_ROLE = re.compile(r"^\W*who\s+(?:is|was|are)\s+(?:the|this|our|your)\s+(?P<role>[a-z]{4,})\b", re.I)
#: The name a role's line prints after a colon or a dash ("Pharmacist on duty: Sarah Jones").
_AFTER_ROLE = re.compile(r"[:–—-]\s*(?P<name>(?:(?:Dr|Prof|Mr|Mrs|Ms|Miss|Mx)\.?\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)"
                         r"{0,3})\s*$")
_NAME_Q = re.compile(r"\bname\s+of\s+(?:the\s+|this\s+|that\s+)?(?P<a>[a-z]{3,})\b"
                     r"|\b(?:the|this)\s+(?P<b>[a-z]{3,})(?:'s)?\s+name\b"
                     r"|\bwhat(?:'s|\s+is)\s+(?:the\s+|this\s+)(?P<c>[a-z]{3,})\s+called\b"
                     r"|\b(?:what|which)\s+(?P<d>[a-z]{3,})\s+is\s+this\b", re.I)
#: Nouns whose name is a title or a document field, read by other rules.
_NOT_A_PLACE = frozenset(["chart", "graph", "plot", "figure", "diagram", "table", "image", "picture", "photo",
                          "product", "item", "brand", "company", "shop", "store", "seller", "person", "colour",
                          "color", "shape", "day", "month", "year", "time", "number", "one", "way", "kind", "type"])
#: Beings whose name is no line ending in the noun, as a shop's is ("Hartley's Bakery").
_BEINGS = frozenset(["cat", "kitten", "dog", "puppy", "pet", "horse", "pony", "bird", "parrot", "rabbit", "bunny",
                     "tortoise", "hamster", "baby", "child", "kid", "boy", "girl", "man", "woman", "owner", "patient",
                     "doctor", "teacher", "driver", "author", "artist", "speaker", "winner", "guest", "customer"])
_DAY_Q = re.compile(r"\b(?:which|what)\s+days?\b", re.I)
_WHEN_Q = re.compile(r"^\W*when\b|\bwhat\s+time\b", re.I)
#: Question words that name no printed thing ("When will they be back?" names "back").
_ASKING = frozenset(["when", "will", "would", "they", "you", "we", "be", "time", "day", "days", "which", "what",
                     "who", "whose", "where", "can", "could", "should", "get", "next", "here", "there", "someone",
                     "anyone", "somebody", "people", "person", "sign", "label", "notice", "poster", "plate", "door"])
_NAME_MAX_WORDS = 6
_SUPERLATIVE = re.compile(r"\b(?:most|least|highest|lowest|fewest|busiest|quietest|largest|smallest|biggest|best|worst)\b")
#: Words a sign prints about a place, never as its name.
_SIGN_WORDS = frozenset(["closed", "open", "ahead", "only", "no", "entrance", "exit", "works", "diversion", "sale",
                         "welcome", "this", "way", "next", "left", "right", "private", "keep", "clear", "parking",
                         "hours", "opening", "times", "menu", "specials", "today", "info", "information", "toilets",
                         "staff", "reception", "car", "park", "lost", "missing", "found", "stolen", "wanted", "reward"])
#: The words a street's name ends in: one kind of place for "What's the name of this street/road?".
_STREET_WORDS = frozenset(["street", "road", "lane", "avenue", "way", "drive", "close", "crescent", "terrace",
                           "boulevard", "place", "row", "st", "rd", "ave"])
#: "Is Ashford closer than Dover?", "Which is farther, Dover or Canterbury?"
_CLOSER_YESNO = re.compile(r"^\W*is\s+(?P<a>.+?)\s+(?P<how>closer|nearer|further|farther)(?:\s+away)?\s+than\s+"
                           r"(?P<b>.+?)\s*(?:\?|$|,|\.|\byes\b)", re.I)
_CLOSER_WHICH = re.compile(r"\b(?:which|what)\b[^?]{0,30}?\b(?P<how>closer|nearer|further|farther|nearest|closest|"
                           r"furthest|farthest)\b(?:\s+away)?[,:]?\s+(?P<a>[^?,]+?)\s+or\s+(?P<b>[^?,]+?)\s*\??\s*$",
                           re.I)
#: "Which destination on the sign is the nearest?": the place on the row of the shortest (longest) distance.
_NEAREST_Q = re.compile(r"\b(?:which|what)\b[^?]*\b(?P<how>nearest|closest|furthest|farthest)\b", re.I)
#: "When does this medicine expire?", "What's the expiry?": a month and year beside an expiry word ("EXP 08/2027").
_EXPIRY_Q = re.compile(r"\bexpir\w*|\bbest before\b|\buse by\b|\bgood until\b|\bvalid until\b", re.I)
_EXPIRY_CUE = re.compile(r"\b(?:exp\w*|best before|bb|use by|bbe|valid until)\b", re.I)
_MONTH_YEAR = re.compile(r"(?<![\d/.-])(?:0?[1-9]|1[0-2])\s?[/.-]\s?(?:20)?\d{2}(?![\d/.-])|\b(?:jan|feb|mar|apr|may|"
                         r"jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:20)?\d{2}\b", re.I)
#: "How many destinations are listed on this sign?": the rows that print a place with its distance.
_PLACES_Q = re.compile(r"\bhow many\s+(?:destinations|places|towns|cities|villages|locations)\b", re.I)
_TO_METRES = {"km": 1000.0, "kilometre": 1000.0, "kilometer": 1000.0, "mi": 1609.344, "mile": 1609.344, "m": 1.0,
              "ft": 0.3048, "yd": 0.9144}


def asks_for_scene_fact(question: str, yesno: bool = False) -> bool:
    """Whether ``question`` asks for one of this module's facts (cheap: its words only)."""
    stem = task_text(question)[0] or question
    if yesno:
        return bool(_CLOSER_YESNO.search(stem))
    return any(p.search(stem) for p in (_COUNTRY_Q, _WHERE_TO_Q, _WHO_Q, _NAME_Q, _DAY_Q, _WHEN_Q, _CLOSER_WHICH,
                                        _PLACES_Q, _NEAREST_Q, _EXPIRY_Q))


def scene_fact(question: str, lines: list[OcrLine], image: Image.Image | None,
               yesno: bool = False) -> PrintedAnswer | None:
    """The fact the question asks for, as printed (``yesno``: Yes or No); None when it asks for none of them."""
    stem = task_text(question)[0] or question
    if not lines:
        return None
    rows = row_lines(lines)
    closer = _CLOSER_YESNO.search(stem) if yesno else _CLOSER_WHICH.search(stem)
    if closer is not None:
        return _compare_distances(closer, rows, image, yesno)
    if yesno:
        return None
    if _PLACES_Q.search(stem):
        return _count_places(rows, image)
    nearest = _NEAREST_Q.search(stem)
    if nearest is not None and " or " not in stem:
        return _nearest_place(rows, image, farthest=nearest.group("how").lower().startswith(("fur", "far")))
    if _EXPIRY_Q.search(stem):
        hits = [(m.group(0).strip(), row) for row in rows if _EXPIRY_CUE.search(row.text)
                for m in _MONTH_YEAR.finditer(row.text)]
        if hits:
            return chosen(hits, image, "the month and year printed beside the expiry")
    named = [w for w in words_of(stem) if w not in STOP_WORDS and w not in _ASKING and len(w) > 2]
    rules: list[tuple[re.Pattern[str], Callable[[], PrintedAnswer | None]]] = [
        (_COUNTRY_Q, lambda: _country(rows, image)),
        (_WHERE_TO_Q, lambda: _destination(lines, named, image)),
        (_WHO_Q, lambda: _person(stem, rows, image)),
        (_NAME_Q, lambda: _called(stem, rows, image)),
        (_DAY_Q, lambda: _weekday(rows, named, image)),
        (_WHEN_Q, lambda: _time_named(rows, named, image)),
    ]
    for pattern, rule in rules:
        if pattern.search(stem):
            answer = rule()
            if answer is not None:
                return answer
    return None


@cache
def _country_pattern() -> re.Pattern[str]:
    names = set(_MORE_COUNTRIES)
    for country in pycountry.countries:
        for attr in ("name", "common_name"):
            name = getattr(country, attr, None)
            if name:
                names.add(name.split(",")[0])  # "Korea, Republic of" is printed "Korea"
    spelled = sorted((re.escape(v) for n in names if len(n) > 3 or n.isupper() for v in {n, n.upper()}),
                     key=len, reverse=True)
    # Capitalised as a name: "bone china", "jersey", "turkey breast" are not countries.
    return re.compile(r"(?<![\w.])(?:" + "|".join(spelled) + r")(?![\w])")


def _country(rows: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    pattern = _country_pattern()
    hits = [(m.group(0), row) for row in rows if _ORIGIN_CUE.search(row.text)
            for m in pattern.finditer(row.text)]
    if not hits:
        return PrintedAnswer(None, 0.0, "country of origin", missing="no country is printed beside 'product of', "
                                                                     "'made in' or 'origin'")
    return chosen(hits, image, "the country printed as the origin")


def _destination(lines: list[OcrLine], named: list[str], image: Image.Image | None) -> PrintedAnswer | None:
    # The reader's own lines, not joined rows: "Trains to York" beside "Platform 3" is two lines.
    naming = [line for line in lines if named and any(fuzzy_in(w, line.text) for w in named)
              and not _NOT_BOUND.search(line.text)]
    hits = [(m.group("place"), row) for row in naming for m in _TO_PLACE.finditer(row.text)]
    if not hits:
        return None
    return chosen(hits, image, f"the place after 'to' on the line naming {' '.join(named)}")


def _person(stem: str, rows: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """"Whose office is this?": the one name printed with a title (a door plate). "Who is the pharmacist on
    duty?": the name after the role on the line naming it ("Pharmacist on duty: Sarah Jones"). A role not
    printed is no answer: a titled name elsewhere may have another role ("Foreword by Dr. Peter Lang")."""
    if _WHOSE_PLACE.search(stem):
        hits = [(m.group(0).strip(), row) for row in rows for m in _TITLED.finditer(row.text)]
        return chosen(hits, image, "the name printed with a title") if hits else None
    role = _ROLE.search(stem)
    if role is None:
        return None
    word = role.group("role").lower()
    hits = [(m.group("name").strip(), row) for row in rows if fuzzy_in(word, row.text)
            for m in _AFTER_ROLE.finditer(row.text)]
    return chosen(hits, image, f"the name printed after '{word}'") if hits else None


def _called(stem: str, rows: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    match = _NAME_Q.search(stem)
    noun = next((g for g in match.groups() if g), "").lower() if match else ""
    if not noun or noun in _NOT_A_PLACE or noun in _BEINGS:
        return None  # a cat's or a person's name never ends in "cat" or "person": "LOST CAT" is a heading
    # A street's name ends in any of a street's words ("Harrow Lane" for "the name of the street").
    kinds = _STREET_WORDS if noun in _STREET_WORDS else {noun}
    spelled = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in sorted(kinds)) + r")(?:s|es|'s)?\.?(?!\w)", re.I)
    naming = [row for row in rows if spelled.search(row.text)]
    if not naming:
        return None
    names = [(row.text.strip(), row) for row in naming if _reads_as_name(row.text, spelled)]
    if not names:
        return None  # "Which platform is this?" over "Platform 7": the number rule reads it
    return chosen(names, image, f"the name printed with '{noun}'")


def _reads_as_name(text: str, noun: re.Pattern[str]) -> bool:
    """A short line of capitalised words ending in the noun ("Hartley's Bakery", "CORNER CAFE", "Station Road" for
    a street), with no digits and none of the words signs print about a place rather than as its name ("STREET
    CLOSED", "Cafe Hours"). Ending in another word, the noun names part of another place ("Station Road" is no
    station's name)."""
    words = text.split()
    if not words or not noun.fullmatch(words[-1].strip(".,:;!")):
        return False
    others = words[:-1]
    plain = [w.strip(".,:;!'’").lower() for w in others]
    return 0 < len(others) < _NAME_MAX_WORDS and not re.search(r"\d", text) \
        and all(w[:1].isupper() or not w[:1].isalpha() for w in words) \
        and not any(w in _SIGN_WORDS for w in plain)


def _weekday(rows: list[OcrLine], named: list[str], image: Image.Image | None) -> PrintedAnswer | None:
    if _SUPERLATIVE.search(" ".join(named)):
        return None  # "On which day were there the most visitors?" compares values, which no line states
    # "Which day is the museum closed?" is not the line saying when it is open.
    closed = "closed" in named or "shut" in named
    days = [w for w in named if _WEEKDAYS.fullmatch(w) is None and w not in ("closed", "shut", "open")]
    hits: list[tuple[str, OcrLine]] = []
    for i, row in enumerate(rows):
        if closed != bool(re.search(r"\b(?:closed|shut)\b", row.text, re.I)):
            continue
        if days and any(fuzzy_in(w, row.text) for w in days):
            on_row = [(m.group(0).strip(), row) for m in _WEEKDAYS.finditer(row.text) if not m.group("group")]
            below = rows[i + 1] if i + 1 < len(rows) else None
            if not on_row and below is not None:  # "Office hours:" over "Tue 10:00-12:00"
                on_row = [(m.group(0).strip(), below) for m in _WEEKDAYS.finditer(below.text) if not m.group("group")]
            hits += on_row
    if not hits:
        return None
    return chosen(hits, image, f"the day printed with {' '.join(days)}")


def _time_named(rows: list[OcrLine], named: list[str], image: Image.Image | None) -> PrintedAnswer | None:
    if not named:
        return None
    # The time right after the named word ("Back at 2:30 PM"), never another time on its line ("Popped out at
    # 2:15 - back in 20 mins") or a line naming something else the question names ("Concert hall bar opens 6 pm").
    hits = [(m.group(0).strip(), row) for row in rows for m in TIME.finditer(row.text)
            if any(re.search(rf"\b{re.escape(w)}\w*\W+(?:(?:at|by|around|about|from|after|is|:)\W+)?$",
                             row.text[:m.start()], re.I) for w in named)]
    if not hits:
        return None
    return chosen(hits, image, f"the time printed after {' or '.join(named)}")


def _distance_of(place: str, rows: list[OcrLine]) -> tuple[float, str, OcrLine] | None:
    """The one distance printed on the row naming ``place`` (in metres, as printed, the row), or None."""
    found = []
    for row in rows:
        if best_match(place, [row])[0] < PRESENT:
            continue
        for match in DISTANCE.finditer(row.text):
            metres = _metres(match)
            if metres is not None:
                found.append((metres, match.group(0), row))
    return found[0] if len({f[1] for f in found}) == 1 else None


def _compare_distances(match: re.Match[str], rows: list[OcrLine], image: Image.Image | None,
                       yesno: bool) -> PrintedAnswer:
    """Which of two places the sign puts closer (farther), from the distance printed beside each."""
    a, b = (match.group(k).strip(" '\"") for k in ("a", "b"))
    far = match.group("how").lower().startswith(("fur", "far"))
    read = [_distance_of(a, rows), _distance_of(b, rows)]
    what = f"the distances to {a} and {b}"
    if read[0] is None or read[1] is None or read[0][0] == read[1][0]:
        missing = "the two distances are equal" if read[0] and read[1] else \
            f"no single distance is printed beside {a if read[0] is None else b}"
        return PrintedAnswer(None, 0.0, what, missing=missing)
    first_closer = read[0][0] < read[1][0]
    spans = f"{a} {read[0][1]}, {b} {read[1][1]}"
    line = min((read[0][2], read[1][2]), key=lambda row: row.confidence)
    first_wins = first_closer != far
    answer = ("Yes" if first_wins else "No") if yesno else (a if first_wins else b)
    settled = chosen([(answer, line)], None, f"{what}: {spans}")
    # The answer's words are the question's; how sure is how legible the two distances were.
    score = min(span_score(image, read[0][2], read[0][1]), span_score(image, read[1][2], read[1][1]))
    settled.confidence = round(min(0.97, score), 3)
    settled.features["span_min_char"] = round(score, 3)
    return settled


def _count_places(rows: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """How many rows print a place with its distance (a direction sign's destinations)."""
    places = [row for row in rows if DISTANCE.search(row.text) and re.search(r"[A-Za-z]{3,}", DISTANCE.sub("", row.text))]
    if len(places) < 1:
        return None
    others = [row.text for row in rows if row not in places and re.search(r"[A-Za-z]{3,}", row.text)]
    if others:  # "LONDON (M25)" with no distance is a destination too, or a heading: the count is unsure
        return PrintedAnswer(None, 0.0, "places", missing=f"{others[0]!r} is printed without a distance: it may be "
                                                          "a destination too")
    score = min(row.confidence for row in places)
    return PrintedAnswer(str(len(places)), round(min(0.97, score), 3),
                         f"rows printing a place with its distance: {', '.join(repr(r.text) for r in places)}",
                         features={"line_confidence": round(score, 3), "span_candidates": 1.0})


def _nearest_place(rows: list[OcrLine], image: Image.Image | None, farthest: bool) -> PrintedAnswer | None:
    """The place on the row of the shortest (longest) distance, among rows of one distance and a place."""
    places: list[tuple[float, str, OcrLine]] = []
    for row in rows:
        found = list(DISTANCE.finditer(row.text))
        if len(found) != 1:
            continue
        metres = _metres(found[0])
        name = re.sub(r"[^\w' .&-]", " ", row.text[:found[0].start()] + " " + row.text[found[0].end():])
        name = " ".join(w for w in name.split() if not re.fullmatch(r"[A-Z]?\d+[A-Z]?", w))  # road numbers (A12)
        if metres is not None and re.search(r"[A-Za-z]{3,}", name):
            places.append((metres, name, row))
    if len(places) < 2:
        return None
    places.sort(key=lambda place: place[0], reverse=farthest)
    what = "farthest" if farthest else "nearest"
    if places[0][0] == places[1][0]:
        return PrintedAnswer(None, 0.0, f"the {what} place", missing=f"{places[0][1]} and {places[1][1]} are "
                                                                     "equally far")
    return chosen([(places[0][1], places[0][2])], image, f"the {what} of {len(places)} places with distances")


def _metres(distance: re.Match[str]) -> float | None:
    """A printed distance (a ``DISTANCE`` match: "12 km", "2,5 km", "1/2 mi") in metres; None when its number or
    unit is none of these."""
    unit = distance.group(2).lower().rstrip("s")
    factor = _TO_METRES.get(unit) or _TO_METRES.get(unit[:2])
    whole, _, over = distance.group(1).replace(",", ".").partition("/")
    try:
        amount = float(whole) / float(over) if over else float(whole)
    except (ValueError, ZeroDivisionError):
        return None
    return None if factor is None else amount * factor
