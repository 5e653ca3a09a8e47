"""Opening hours as a shop door, an office plate or a parking sign prints them, and the questions they answer: "What
time does it close on Saturday?", "When does the shop open?", "Is it open on Sunday?", "What hours does the limit
apply?".

``read_hours`` turns the rows of a reading into entries: the days a row names ("Mon - Sat", "Sunday", "Weekdays"
or none) and its hours ("9:00 - 17:30", "7am - 7pm") or "closed". A row of days alone takes the hours printed on the
row under it ("Mon - Fri" over "7am - 7pm"). ``hours_answer`` picks the one entry the question's days fall in and
gives the part asked for, exactly as printed; two entries and no day named, or a day no entry covers, give no answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PIL import Image

from skills.ocr.printed import PrintedAnswer, chosen, row_lines
from skills.question_text import task_text
from vision_tools.text import OcrLine

_DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY = r"(?:mon(?:days?)?|tue(?:s(?:days?)?)?|wed(?:s|nesdays?)?|thu(?:r(?:s(?:days?)?)?)?|fri(?:days?)?|" \
       r"sat(?:urdays?)?|sun(?:days?)?)\.?"
DAY_SPANS = re.compile(rf"\b(?P<first>{_DAY})(?:\s*(?:-|–|—|to|until|till|thru|through)\s*(?P<last>{_DAY}))?(?!\w)"
                   r"|\b(?P<group>weekdays?|weekends?|daily|every ?day|7 days)\b", re.I)
_CLOCK = r"(?:[01]?\d|2[0-3])(?:[:.][0-5]\d)?\s?(?:[ap]\.?m\.?)|(?:[01]?\d|2[0-3])[:.][0-5]\d|noon|midnight"
_RANGE = re.compile(rf"(?P<open>{_CLOCK})\s*(?:-|–|—|to|until|till)\s*(?P<close>{_CLOCK})(?!\w)", re.I)
_CLOSED = re.compile(r"\bclosed\b", re.I)
_GROUPS = {"weekday": range(5), "weekend": range(5, 7), "daily": range(7), "everyday": range(7), "every day": range(7),
           "7 days": range(7)}

#: "What time does it close?", "When does the bakery open on Saturday?", "closing time on Sunday?"
_OPEN_Q = re.compile(r"\b(?:what time|when)\b.{0,40}\bopen(?:s|ing)?\b|\bopening time\b", re.I)
_CLOSE_Q = re.compile(r"\b(?:what time|when)\b.{0,40}\b(?:close|closes|closing|shut|shuts)\b|\bclosing time\b", re.I)
#: "What are the opening hours?", "What hours does the limit apply?", "Office hours on Tuesday?"
_HOURS_Q = re.compile(r"\b(?:what|which)\s+(?:are\s+the\s+)?(?:\w+\s+)?hours\b|\b(?:opening|office|business)\s+"
                      r"hours\b|\bwhat times?\b.{0,30}\b(?:apply|applies|valid|in force)\b", re.I)
#: "Which day are the office hours?", "What days is it closed?"
_DAY_Q = re.compile(r"\b(?:which|what)\s+days?\b", re.I)
#: "Is the shop open on Sunday?", "Are they open Saturdays?"
_OPEN_YESNO = re.compile(r"^\W*(?:is|are)\b.{0,40}\bopen\b", re.I)
#: "Does the 2 hour limit apply on Sundays?": a sign's rule holds on the days its rows name, and on no other.
_APPLIES_YESNO = re.compile(r"^\W*(?:does|do|is|are)\b.{0,60}\b(?:apply|applies|valid|in force|enforced|operate|"
                            r"operates|in effect)\b", re.I)


@dataclass(frozen=True)
class Hours:
    """One printed row of hours: the days it names (None: no day named) and its hours, or closed."""

    days: frozenset[int] | None
    days_text: str | None
    opens: str | None
    closes: str | None
    closed: bool
    line: OcrLine

    @property
    def span(self) -> str:
        return "closed" if self.closed else f"{self.opens} - {self.closes}"


def asks_about_hours(question: str, yesno: bool = False) -> bool:
    """Whether ``question`` asks when something opens or closes, or its hours (cheap: its words only)."""
    stem = task_text(question)[0] or question
    if yesno:
        return bool(_OPEN_YESNO.search(stem) or _APPLIES_YESNO.search(stem))
    return any(p.search(stem) for p in (_OPEN_Q, _CLOSE_Q, _HOURS_Q, _DAY_Q))


def read_hours(lines: list[OcrLine]) -> list[Hours]:
    """The rows of ``lines`` that print hours or "closed", each with the days it names."""
    rows = row_lines(lines)
    entries: list[Hours] = []
    skip = -1
    for i, line in enumerate(rows):
        if i == skip:
            continue
        days, days_text = _days_of(line.text)
        hours = _RANGE.search(line.text)
        closed = hours is None and days is not None and bool(_CLOSED.search(line.text))
        if hours is None and not closed and days is not None and i + 1 < len(rows):
            below = rows[i + 1]
            if _days_of(below.text)[0] is None and (hours := _RANGE.search(below.text)) is not None:
                skip = i + 1  # "Mon - Fri" over "7am - 7pm": one entry over two rows
        if hours is not None:
            entries.append(Hours(days, days_text, hours.group("open"), hours.group("close"), False, line))
        elif closed:
            entries.append(Hours(days, days_text, None, None, True, line))
    return entries


def hours_answer(question: str, lines: list[OcrLine], image: Image.Image | None,
                 yesno: bool = False) -> PrintedAnswer | None:
    """The opening or closing time, the hours, or (``yesno``) whether it is open on the day asked; None when the
    question asks none of these."""
    stem = task_text(question)[0] or question
    if not asks_about_hours(stem, yesno):
        return None
    entries = read_hours(lines)
    what = "opening hours"
    if not entries:
        return None  # no hours printed: a label ("Office hours: by appointment") may still answer
    if _DAY_Q.search(stem) and not yesno:
        return _days_answer(stem, entries, image)
    asked, asked_text = _days_of(stem)
    if asked is None and yesno:
        # "Is it open?" asks about now, which no sign settles.
        return PrintedAnswer(None, 0.0, what, missing="the question names no day to look up in the hours")
    if asked is None:
        if not yesno and (_OPEN_Q.search(stem) or _CLOSE_Q.search(stem)) and not _HOURS_Q.search(stem):
            # "What time does it close?": the days marked closed have no closing time to confuse it with.
            entries = [entry for entry in entries if not entry.closed] or entries
        if len({entry.span for entry in entries}) > 1:
            listed = "; ".join(f"{e.days_text or 'no day named'}: {e.span}" for e in entries[:4])
            return PrintedAnswer(None, 0.0, what, missing=f"the hours differ by day ({listed}) and the question "
                                                          "does not say which day")
        entry = entries[0]
    else:
        covering = [e for e in entries if e.days is not None and asked <= e.days]
        if not covering and yesno and _APPLIES_YESNO.search(stem) and all(e.days is not None for e in entries) \
                and not any(asked & (e.days or frozenset()) for e in entries):
            # Every row names its days and none names the day asked: the rule does not apply then.
            listed = ", ".join(e.days_text or "" for e in entries)
            return chosen([("No", entries[0].line)], image, f"the days the sign names ({listed}) leave out {asked_text}")
        if not covering:
            named = [e for e in entries if e.days is None]
            if len(named) != 1 or len(entries) != 1:
                return PrintedAnswer(None, 0.0, what, missing=f"no printed hours name {asked_text}")
            covering = named  # one row of hours for every day
        if len({e.span for e in covering}) > 1:
            return PrintedAnswer(None, 0.0, what, missing=f"more than one row of hours covers {asked_text}")
        entry = covering[0]
    if yesno:
        return chosen([("No" if entry.closed else "Yes", entry.line)], image,
                      f"the hours for {entry.days_text or 'every day'}: {entry.span}")
    if entry.closed:
        return PrintedAnswer(None, 0.0, what, missing=f"the sign says {entry.days_text} is closed, so there is no "
                                                      "opening or closing time")
    if _CLOSE_Q.search(stem) and not _OPEN_Q.search(stem):
        return chosen([(entry.closes or "", entry.line)], image, "the closing time printed")
    if _OPEN_Q.search(stem) and not _CLOSE_Q.search(stem) and not _HOURS_Q.search(stem):
        return chosen([(entry.opens or "", entry.line)], image, "the opening time printed")
    span = _RANGE.search(entry.line.text) or _RANGE.search(entry.span)
    return chosen([(span.group(0).strip() if span else entry.span, entry.line)], image, "the hours printed")


def _days_answer(stem: str, entries: list[Hours], image: Image.Image | None) -> PrintedAnswer | None:
    """The days of the hours printed ("Tue" for "Which day are the office hours?"), or of the days marked closed
    when the question asks which are; None when no row of hours names a day (another rule may read the day)."""
    closed = bool(_CLOSED.search(stem))
    named = [(e.days_text or "", e.line) for e in entries if e.days is not None and e.closed == closed]
    return chosen(named, image, "the days printed with the hours") if named else None


def _days_of(text: str) -> tuple[frozenset[int] | None, str | None]:
    """The days ``text`` names (a day, a range of days, "weekdays"…) and the words that name them."""
    days: set[int] = set()
    spans = []
    for match in DAY_SPANS.finditer(text):
        spans.append(match.group(0).strip())
        group = match.group("group")
        if group:
            key = re.sub(r"s$", "", group.lower().replace("  ", " "))
            days.update(_GROUPS.get(key, _GROUPS.get(key.replace(" ", ""), range(0))))
            continue
        first = _DAY_NAMES.index(match.group("first").lower()[:3])
        last = _DAY_NAMES.index(match.group("last").lower()[:3]) if match.group("last") else first
        days.update(range(first, last + 1) if last >= first else [*range(first, 7), *range(0, last + 1)])
    return (frozenset(days), ", ".join(spans)) if days else (None, None)
