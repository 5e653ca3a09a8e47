"""Questions a look-up in a chart's table would answer as if they were another question.

"Which pupil read the most books?" over months, "what percentage of people …" over minutes, "where will the rate be
by 2025?" over what was recorded, "the slowest deliveries" over delivery times, "from January to December" where
"Jan" went unread: each reads like a question the table answers, and its answer would be that other question's.
``asks_another_question`` says so before any look-up; the chart skill then gives no answer.
"""

from __future__ import annotations

import re

from skills.chart.facts import time_key
from skills.chart.measure import in_percent
from skills.chart.names import CALENDAR, norm, spellings, unread_calendar_names
from skills.question_text import task_text
from vision_tools.charts import ChartResult

#: A prediction asked for, which only a chart of forecasts prints.
_FUTURE = re.compile(r"\bwill\b|\bgoing to\b|\bforecast|\bpredict|\bexpect(?:ed)? to\b|\bnext (?:year|month|quarter|"
                     r"week|season)\b|\bin the future\b|\bproject(?:ed|ion)\b", re.I)
_FORECAST = re.compile(r"\bforecast|\bprojected\b|\bprojections?\b|\bpredicted\b|\bestimates?\b|\boutlook\b", re.I)
#: A share asked for: only a chart of percentages gives it by a look-up.
_ASKS_PERCENT = re.compile(r"\bwhat (?:percent(?:age)?|share|proportion|fraction|%)\b|\bhow many percent\b|"
                           r"\bpercentage of\b|\bwhat portion\b", re.I)
#: "which <noun>": the kind of thing asked for, to be told from the chart's categories when they are times.
_WHICH_NOUN = re.compile(r"\b(?:which|what)\s+(?P<noun>[a-z]+)\b", re.I)
_TIME_NOUNS = {"month", "year", "day", "week", "quarter", "date", "season", "decade", "weekday", "semester"}
#: Kinds of things that are never a time: "which pupil", "which team" over a chart of months names none of them.
_THINGS = {"pupil", "student", "person", "player", "team", "club", "city", "town", "country", "state", "region",
           "company", "brand", "product", "store", "shop", "department", "employee", "member", "child", "kid",
           "school", "car", "model", "restaurant", "hotel", "hospital", "airline", "animal", "fruit", "colour",
           "color", "language", "sport", "movie", "film", "book", "author", "app", "website", "channel", "party",
           "candidate", "athlete", "driver", "singer", "band", "artist", "customer", "supplier", "branch", "site"}
_QUARTER = re.compile(r"^(?:q[1-4]|h[12])(?:\s*'?\d{2,4})?$|^(?:19|20)\d\d(?:\s*q[1-4])?$|^fy\s*'?\d{2,4}$", re.I)
#: Words whose direction depends on what is measured: a speed (highest is fastest) or a time (lowest is).
#: A question for a cause or a reason, which a chart's values never give.
_CAUSE = re.compile(r"\bwhy\b|\bwhat (?:caused|made|led to|explains)\b|\bfor what reason\b|\bhow come\b|"
                    r"\bthe reason\b|\breasons? (?:for|why|behind)\b", re.I)
_SPEED_WORD = re.compile(r"\b(?:slow|fast|quick)(?:est|er)\b", re.I)
SPEED_MEASURE = re.compile(r"\bspeeds?\b|\bvelocity\b|km/h|\bkph\b|\bmph\b|/s\b|\bmbps\b|"
                            r"\bper (?:second|hour)\b", re.I)


def asks_another_question(chart: ChartResult, question: str) -> bool:
    """Whether a look-up in ``chart``'s table would answer another question than ``question`` (see the module)."""
    printed = " ".join([chart.title, *chart.texts, *chart.series])
    if unread_calendar_names(chart.categories, question, [chart.title, *chart.texts]) or \
            any(_run_together(c) for c in chart.categories):
        return True  # a period the chart does not show, or labels whose points have no label of their own
    if _CAUSE.search(question):
        return True  # "why did admissions fall so much in 2020?": a cause, which no value of the chart is
    if _FUTURE.search(question) and not _FORECAST.search(printed):
        return True  # "where will the rate be by mid 2025?": a chart of what was recorded predicts nothing
    if _ASKS_PERCENT.search(question) and not in_percent(chart):
        return True  # "what percentage of people in Portland …" over commute minutes: no value is a share
    if not _asks_for_the_categories_kind(chart, question):
        return True  # "Which pupil read the most books?" over months: a month is no pupil
    # "the slowest deliveries" over delivery times is the highest bar, over speeds the lowest
    return bool(_SPEED_WORD.search(question)) and not SPEED_MEASURE.search(" ".join([chart.title, *chart.texts]))


def _run_together(category: str) -> bool:
    """Whether a category label holds two or more times ("Q4 2021 Q1 2022"): slanted labels read as one line,
    which leaves the points between them with no label of their own."""
    text = norm(category)
    quarters = len(re.findall(r"\b[qh][1-4]\b", text))
    years = len(re.findall(r"\b(?:19|20)\d\d\b", text))
    months = sum(1 for word in text.split() if len(word) >= 3 and any(full.startswith(word) for full in CALENDAR))
    return quarters >= 2 or months >= 2 or (years >= 2 and not re.fullmatch(r"(?:19|20)\d\d\s*\d{2,4}", text))


def _asks_for_the_categories_kind(chart: ChartResult, question: str) -> bool:
    """False when "which <noun>" asks for a kind of thing the categories cannot be: a pupil or a team among months,
    a month among products. Only times are told apart from things; other nouns ("category", "slice") pass."""
    asked = _WHICH_NOUN.search(question)
    if asked is None or not chart.categories:
        return True
    noun = asked.group("noun").lower()
    noun = noun[:-1] if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3 else noun
    # Most of them: one misread label ("Aùg") leaves the others months.
    timed = sum(bool(_QUARTER.match(norm(c)) or any(full in CALENDAR for full in spellings(norm(c))))
                for c in chart.categories)
    if timed >= 0.8 * len(chart.categories):
        printed = " ".join([chart.title, *chart.texts, *chart.series]).lower()
        return noun not in _THINGS or re.search(rf"\b{re.escape(noun)}", printed) is not None
    # "Day 1", "Week 3": categories that name the kind asked are of that kind, though no calendar's.
    named = any(re.match(rf"{re.escape(noun)}s?\b", norm(c)) for c in chart.categories)
    return timed > 0 or noun not in _TIME_NOUNS or named


#: A number as a question or a chart prints it ("2.5", "3,000", "2023", the 7 of "7B"), not a digit inside a word
#: ("Q3") nor a rank ("2nd").
_NUMBER = re.compile(r"(?<![A-Za-z0-9.,])\d+(?:[.,]\d+)*(?!\d|(?:st|nd|rd|th)\b)")


def unprinted_numbers(chart: ChartResult, question: str) -> list[str]:
    """The numbers ``question`` states that the chart prints nowhere: a premise ("if the income is $3000"), a point
    between the ticks ("for 2.5 hours") or a threshold ("more than 90k"). A look-up in the table would answer as if
    they were not there."""
    printed = {_plain(n) for text in [*chart.texts, *chart.categories, *chart.series] for n in _NUMBER.findall(text)}
    # A number inside a name is printed too: "week 5" names the category "Wk5".
    printed |= {_plain(n) for name in [*chart.categories, *chart.series] for n in re.findall(r"\d+(?:[.,]\d+)*", name)}
    asked = task_text(question)[0] or question
    # "the average over the 8 months", "all 5 cities": the number of the chart's categories, not a value
    counted = {m.group(1) for m in re.finditer(r"\b(?:the|all|these|those) (\d+) [a-z]+s\b", asked.lower())
               if int(m.group(1)) == len(chart.categories) > 1}
    return [n for n in _NUMBER.findall(asked) if _plain(n) not in printed and n not in counted]


def _plain(number: str) -> str:
    return number.replace(",", "").lstrip("0") or "0"


#: "the week before", "last month", "a year ago": a period before the one shown.
_OTHER_PERIOD = re.compile(r"\b(?:the|a|one)\s+(?:day|week|month|year|quarter|season|term)\s+before\b|"
                           r"\b(?:previous|prior|preceding|last)\s+(?:day|week|month|year|quarter|season|term)\b|"
                           r"\b(?:a|one|two|three|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago\b|\byesterday\b",
                           re.I)


def asks_another_period(chart: ChartResult, question: str) -> bool:
    """Whether ``question`` asks about a period before the one a chart of no periods shows: "how much glass did
    they get the week before" over one week's materials (round 32). Over categories that are times, "the month
    before" may be one of them, and the steps of the series read it."""
    return bool(_OTHER_PERIOD.search(question)) and not any(time_key(c) is not None for c in chart.categories)

