"""Opening hours as a shop door, an office plate or a parking sign prints them, and the questions they answer: "What
time does it close on Saturday?", "When does the shop open?", "Is it open on Sunday?", "What hours does the limit
apply?".

``read_hours`` turns the rows of a reading into entries: the days a row names ("Mon - Sat", "Sunday", "Weekdays"
or none) and its hours ("9:00 - 17:30", "9:00 - 12:30, 14:00 - 18:00" with a lunch break) or "closed". A row naming
two groups of days ("Sat 10am - 4pm, Sun 11am - 3pm") gives one entry per group; a row of days alone takes the hours
on the row under it ("Mon - Fri" over "7am - 7pm"). ``hours_answer`` picks the one entry the question's days fall in
and gives the part asked for, exactly as printed. No answer when two entries differ and no day is named, when no
entry covers the day asked, when the question's subject ("the kitchen") has a time of its own printed apart, or, for
Yes/No, when the question asks about a time of day or the sign also says "closed" without naming a weekday
("Closed Christmas Day").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from PIL import Image

from skills.ocr.spans import PrintedAnswer, chosen, fuzzy_in, row_lines
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
#: Days whose hours a board of weekdays does not give: a holiday falls on a weekday and often keeps other hours.
_HOLIDAY = re.compile(r"\b(?:(?:bank|public|national|federal|school)\s+holidays?|holidays?|easter(?:\s+(?:sunday|"
                      r"monday))?|christmas(?:\s+(?:eve|day))?|x-?mas|boxing\s+day|new\s+year'?s?(?:\s+(?:eve|day))?|"
                      r"good\s+friday|thanksgiving|labou?r\s+day|memorial\s+day|independence\s+day|"
                      r"whit\s+monday|may\s+day)\b", re.I)
#: "Does the 2 hour limit apply on Sundays?": a sign's rule holds on the days its rows name, and on no other.
_APPLIES_YESNO = re.compile(r"^\W*(?:does|do|is|are)\b.{0,60}\b(?:apply|applies|valid|in force|enforced|operate|"
                            r"operates|in effect)\b", re.I)


@dataclass(frozen=True)
class Hours:
    """One entry of printed hours: the days it names (None: no day named) and its time ranges, or closed."""

    days: frozenset[int] | None
    days_text: str | None
    ranges: tuple[tuple[str, str], ...]  # (opens, closes) as printed, in reading order
    closed: bool
    line: OcrLine

    @property
    def opens(self) -> str | None:
        return self.ranges[0][0] if self.ranges else None

    @property
    def closes(self) -> str | None:
        return self.ranges[-1][1] if self.ranges else None

    @property
    def span(self) -> str:
        return "closed" if self.closed else ", ".join(f"{a} - {b}" for a, b in self.ranges)


def asks_about_hours(question: str, yesno: bool = False) -> bool:
    """Whether ``question`` asks when something opens or closes, or its hours (cheap: its words only)."""
    stem = task_text(question)[0] or question
    if yesno:
        return bool(_OPEN_YESNO.search(stem) or _APPLIES_YESNO.search(stem))
    return any(p.search(stem) for p in (_OPEN_Q, _CLOSE_Q, _HOURS_Q, _DAY_Q))


def read_hours(lines: list[OcrLine]) -> list[Hours]:
    """The entries of hours or "closed" the rows of ``lines`` print, each with the days it names."""
    rows = row_lines(lines)
    entries: list[Hours] = []
    skip = -1
    for i, line in enumerate(rows):
        if i == skip:
            continue
        days = _day_groups(line.text)
        ranges = list(_RANGE.finditer(line.text))
        if days and not ranges and not _CLOSED.search(line.text) and i + 1 < len(rows):
            below = rows[i + 1]
            if not DAY_SPANS.search(below.text) and _RANGE.search(below.text):
                skip = i + 1  # "Mon - Fri" over "7am - 7pm": one entry over two rows
                entries.append(_entry(line.text, line, list(_RANGE.finditer(below.text)), False))
                continue
        if len(days) > 1 and ranges:
            if ranges[0].start() < days[0][0]:
                continue  # times before the first day: which days they belong to is not printed
            for k, (start, stop) in enumerate(days):  # "Sat 10am - 4pm, Sun 11am - 3pm": each group its ranges
                end = days[k + 1][0] if k + 1 < len(days) else len(line.text)
                part = [r for r in ranges if stop <= r.start() < end]
                if part or _CLOSED.search(line.text[start:end]):
                    entries.append(_entry(line.text[start:stop], line, part, not part))
        elif ranges:
            entries.append(_entry(line.text, line, ranges, False))
        elif days and _CLOSED.search(line.text):
            entries.append(_entry(line.text, line, [], True))
    return entries


def _day_groups(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names groups of days: "Tue & Thu" is one group sharing the hours after it, "Sat 10am - 4pm,
    Sun 11am - 3pm" two."""
    groups: list[tuple[int, int]] = []
    for match in DAY_SPANS.finditer(text):
        if groups and re.fullmatch(r"\s*(?:&|and|,|/|\+)\s*", text[groups[-1][1]:match.start()], re.I):
            groups[-1] = (groups[-1][0], match.end())
        else:
            groups.append((match.start(), match.end()))
    return groups


def _entry(days_text: str, line: OcrLine, ranges: list[re.Match[str]], closed: bool) -> Hours:
    days, named = _days_of(days_text)
    return Hours(days, named, tuple((r.group("open"), r.group("close")) for r in ranges), closed, line)


def hours_answer(question: str, lines: list[OcrLine], image: Image.Image | None,
                 yesno: bool = False) -> PrintedAnswer | None:
    """The opening or closing time, the hours, or (``yesno``) whether it is open on the day asked; None when the
    question asks none of these, or names a subject the hours rows do not (another rule may read it)."""
    stem = task_text(question)[0] or question
    if not asks_about_hours(stem, yesno):
        return None
    entries = read_hours(lines)
    what = "opening hours"
    if not entries:
        return None  # no hours printed: a label ("Office hours: by appointment") may still answer
    entries, apart = _about_subject(stem, lines, entries)
    if apart is not None:
        return None if _DAY_Q.search(stem) and not yesno else PrintedAnswer(None, 0.0, what, missing=apart)
    if _DAY_Q.search(stem) and not yesno:
        return _days_answer(stem, entries, image)
    spelled = _holidays_spelled(stem)
    if (holiday := _HOLIDAY.search(spelled)) is not None:
        return _holiday_answer(spelled, holiday, lines, image, yesno)
    asked, asked_text = _days_of(stem)
    if yesno and (unsure := _yes_no_unsure(stem, asked)) is not None:
        return PrintedAnswer(None, 0.0, what, missing=unsure)
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
        notice = None if entry.closed else _closed_notice(lines)
        if notice is not None:  # "Closed Christmas Day" under "Open daily": a "Yes" may be the notice's day
            return PrintedAnswer(None, 0.0, what, missing=f"the sign also says {notice!r}")
        return chosen([("No" if entry.closed else "Yes", entry.line)], image,
                      f"the hours for {entry.days_text or 'every day'}: {entry.span}")
    if entry.closed:
        return PrintedAnswer(None, 0.0, what, missing=f"the sign says {entry.days_text} is closed, so there is no "
                                                      "opening or closing time")
    if _CLOSE_Q.search(stem) and not _OPEN_Q.search(stem):
        return chosen([(entry.closes or "", entry.line)], image, "the closing time printed")
    if _OPEN_Q.search(stem) and not _CLOSE_Q.search(stem) and not _HOURS_Q.search(stem):
        return chosen([(entry.opens or "", entry.line)], image, "the opening time printed")
    return chosen([(entry.span, entry.line)], image, "the hours printed")


#: Question words that name no subject of their own: the hours' vocabulary.
_HOURS_WORDS = frozenset(["what", "when", "which", "time", "times", "open", "opens", "opening", "close", "closes",
                          "closing", "closed", "shut", "shuts", "hours", "hour", "day", "days", "does", "do", "is",
                          "are", "it", "they", "the", "on", "a", "an", "this", "that", "there", "its", "their",
                          "today", "usually", "normally", "sign", "apply", "applies", "valid", "limit", "and", "to",
                          "from", "at", "in", "of", "you", "we", "can", "get", "go", "yes", "no", "or"])


def _about_subject(stem: str, lines: list[OcrLine], entries: list[Hours]) -> tuple[list[Hours], str | None]:
    """The entries about the question's subject ("the kitchen", "the cafe"): those naming it, when some do; all,
    when it is named only where no time is printed (a shop's name over its hours); none, with why, when a row
    naming it prints a time that is not an entry ("Kitchen closes at 21:00")."""
    subject = [w for w in re.findall(r"[a-z]+", stem.lower()) if w not in _HOURS_WORDS and len(w) > 2
               and not DAY_SPANS.fullmatch(w)]
    if not subject:
        return entries, None
    naming = [e for e in entries if any(fuzzy_in(w, e.line.text) for w in subject)]
    if naming:
        return naming, None
    entry_rows = {e.line.text for e in entries}
    for row in row_lines(lines):
        if row.text not in entry_rows and any(fuzzy_in(w, row.text) for w in subject) and \
                (re.search(_CLOCK, row.text, re.I) or DAY_SPANS.search(row.text)):
            return [], f"{row.text!r} names the {' '.join(subject)} apart from the rows of hours"
    return entries, None


#: "the Christmas holidays", "over the Easter break": a period of days, which one day's row does not settle.
_PERIOD = re.compile(r"\s+(?:holidays?|period|week|weekend|break|season|hols)\b", re.I)


#: Holiday words as users mistype them ("esater", "christmass", "thanksgivng"): one slip from the word.
_HOLIDAY_WORDS = ("easter", "christmas", "holiday", "holidays", "thanksgiving", "boxing")


def _holidays_spelled(stem: str) -> str:
    """``stem`` with a holiday word typed with one slip written right, so the holiday rule sees it."""
    def spelled(match: re.Match[str]) -> str:
        word = match.group(0)
        near = [h for h in _HOLIDAY_WORDS if SequenceMatcher(None, word.lower(), h).ratio() >= 0.8]
        return near[0] if near and word.lower() not in _HOLIDAY_WORDS else word

    return re.sub(r"[A-Za-z]{5,}", spelled, stem)


def _holiday_answer(stem: str, found: re.Match[str], lines: list[OcrLine], image: Image.Image | None,
                    yesno: bool) -> PrintedAnswer:
    """A holiday's hours only from a row printing that holiday, every word of it ("Closed on Bank Holidays": No to
    "open on bank holiday mondays?"; "Closed Christmas Day" says nothing of Christmas Eve); the weekday it falls on
    is no answer, as holidays often keep other hours."""
    what, holiday = "opening hours", found.group(0)
    if _PERIOD.match(stem[found.end():]):
        return PrintedAnswer(None, 0.0, what, missing=f"the question asks about a period ({holiday} and after), "
                                                      "and the sign's rows give single days")
    keys = [w for w in re.findall(r"[a-z]+", holiday.lower()) if len(w) > 1]
    printing = [row for row in row_lines(lines) if keys and all(fuzzy_in(k, row.text) for k in keys)]
    if not printing:
        return PrintedAnswer(None, 0.0, what, missing=f"the sign prints no hours for {holiday}: the usual hours of "
                                                      "the weekday it falls on may not hold on a holiday")
    closed = [row for row in printing if _CLOSED.search(row.text) and not _RANGE.search(row.text)]
    if yesno and len(closed) == len(printing) and _OPEN_YESNO.search(stem):
        return chosen([("No", closed[0])], image, f"the sign says {closed[0].text!r}")
    said = "; ".join(repr(row.text) for row in printing[:2])
    return PrintedAnswer(None, 0.0, what, missing=f"the sign says {said} of {holiday}, and no time for it is read "
                                                  "by this rule")


def _yes_no_unsure(stem: str, asked: frozenset[int] | None) -> str | None:
    """Why a Yes/No about the hours cannot be settled from the days: none named, or a time of day asked."""
    if asked is None:
        return "the question names no day to look up in the hours"  # "Is it open?" asks about now
    if re.search(_CLOCK, stem, re.I):
        return "the question asks about a time of day, and only the days are looked up"
    return None


def _closed_notice(lines: list[OcrLine]) -> str | None:
    """A row saying "closed" without a weekday or hours ("Sorry, we're CLOSED", "Closed Christmas Day")."""
    return next((row.text for row in row_lines(lines) if _CLOSED.search(row.text) and not DAY_SPANS.search(row.text)
                 and not _RANGE.search(row.text)), None)


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
