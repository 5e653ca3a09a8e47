"""Answers that are one part of the printed text: the smallest span of the OCR reading that answers the question.

A question about a sign, a label or a chart often asks for one part of what is printed: the title, the exit
number, the distance to a place, a phone number, a price, "the number written on the label", or whether a word
is printed at all. ``printed_answer(question, lines, image)`` recognises these kinds of question by their words
(never by item) and returns:

- None when the question is none of these kinds (the skill then transcribes, or reads a document field);
- a ``PrintedAnswer`` with the span as printed ("17", "12 km", "555-0142", "$4.50", "Yes"), its confidence (the
  recogniser's score of the span's least legible character, ``vision_tools.text.chars``) and evidence features;
- or a ``PrintedAnswer`` without an answer and what is missing ("two numbers are printed (12, 45) and the
  question does not say which"), so the skill abstains instead of answering with the whole transcription.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from PIL import Image

from skills.document_questions import asks_a_difference
from skills.ocr.spans import (
    DISTANCE,
    PRICE,
    STOP_WORDS,
    PrintedAnswer,
    chosen,
    fuzzy_in,
    row_lines,
    span_score,
    words_of,
)
from skills.ocr.spans_by_name import CHEAPER_Q, compare_prices, named_beside, near_named
from skills.question_text import task_text
from vision_tools.documents.patterns import QUANTITY as _QUANTITY
from vision_tools.image.boxes import Box
from vision_tools.text import OcrLine
from vision_tools.text.ocr import order_lines

_YESNO_TARGETS = (
    re.compile(r"[\"“‘']([^\"”’']{1,40})[\"”’']"),
    re.compile(r"\b(?:say|says|read|reads|spell|spells|show|shows|mentions?|contains?|includes?|lists?)\s+"
               # "on the door" says where, "on wednesday" is part of what is said
               r"(?:the\s+words?\s+)?(?P<t>.+?)\s*(?:\bon\s+(?:the|this|that|it|its|a|an|there)\b.*)?\??$", re.I),
    re.compile(r"^(?:is|are)\s+(?:the\s+(?:word|words|text|name)\s+)?(?P<t>.+?)\s+(?:written|printed|shown|"
               r"displayed|visible|mentioned)\b", re.I),
    re.compile(r"\bthe\s+(?:word|words|text|name)\s+(?P<t>.+?)\s+(?:on|in|written|printed|shown|appear)", re.I),
)
_PRINTED_YESNO = re.compile(r"\b(say|says|read|reads|spell|spells|written|printed|word|words|text|shows?|"
                            r"mentions?|contains?|includes?|lists?)\b", re.I)
#: Yes/no verbs about what the text is about rather than its words: only "Yes" is settled by a printed match.
_ABOUT_CONTENT = re.compile(r"\b(?:mentions?|contains?|includes?|lists?)\b", re.I)
#: A question about the title or heading (also read by ``skills.ocr.choices``).
TITLE_QUESTION = re.compile(r"\b(title|titled|heading|headline|caption)\b"
                            r"|\bname of (?:the|this) (?:chart|graph|plot|figure|diagram)\b"
                            r"|\b(?:chart|graph|plot|figure|diagram) (?:is )?called\b", re.I)
#: "the name of the shop in the title", "which year is mentioned in the heading": one part of the title, not all of it
#: (unless what is asked is the title's wording: "what does it say in the heading").
_IN_THE_TITLE = re.compile(r"\b(?:in|on|from|within|inside|according to)\s+(?:the\s+|its\s+|this\s+)?"
                           r"(?:(?:chart|graph|plot|figure)'?s?\s+)?(?:title|heading|headline|caption)\b", re.I)
_TITLE_WORDING = re.compile(r"\b(?:says?|written|printed|wording|words?|text)\b", re.I)
#: "What's the y axis title?", "the legend's heading": a title of one part, not the top line of the whole.
_OTHER_TITLE = re.compile(r"\b(?:[xy][- ]?)?ax[ie]s\b|\blegend\b|\bcolumn\b|\bsection\b|\bpanel\b",
                          re.IGNORECASE)
DISTANCE_Q = re.compile(r"\bhow far\b|\bdistance\b|\bhow many (?:km|kilomet\w+|miles?|mi|metres?|meters?)\b", re.I)
#: "How much does it weigh?", "net weight?", "How heavy is the pack?", "How many ml is the bottle?"
_QUANTITY_Q = re.compile(r"\bweigh|\bweight\b|\bheavy\b|\bvolume\b|\bcapacity\b|\bhow many (?:ml|millilit\w+|"
                         r"lit(?:re|er)s?|l|cl|g|grams?|kg|kilograms?|oz|ounces?|lbs?|pounds?)\b", re.I)
#: "What's the alcohol percentage?", "How much is the discount in percent?"
_PERCENT_Q = re.compile(r"\bpercent(?:age)?\b|\babv\b|%", re.I)
#: "How many age groups are above 50%?", "the gap in percentage points between …": a count or a difference of
#: percentages, which no one printed percentage is.
_NOT_ONE_PERCENTAGE = re.compile(r"\bhow many\b|\b(?:gap|difference|between|above|below|over|under|more than|less "
                                 r"than|fewer than|compared|higher|lower|points?)\b", re.I)
_PERCENT = re.compile(r"(?<![\w.,])[-+−]?\d+(?:[.,]\d+)?\s?%")
#: Words a percentage's line prints for what the question names ("alcohol" as "13.5% vol", "ALC 12%").
_PERCENT_NAMES = {"alcohol": ("alcohol", "alc", "vol", "abv"), "abv": ("alcohol", "alc", "vol", "abv"),
                  "discount": ("discount", "off", "save", "saving"), "off": ("off", "discount")}
_PERCENT_WORDS = frozenset(["percentage", "percent", "what", "how", "much", "the", "is", "of", "this", "it", "its",
                            "whats", "s", "are", "on", "in", "does", "have", "has", "there", "a", "an", "per"])
#: "What year is this wine?", "Vintage?", "Which year was the shop founded?"
_YEAR_Q = re.compile(r"\b(?:what|which)\s+year\b|\bvintage\b|\byear\b.{0,30}\b(?:founded|established|built|made)\b",
                     re.I)
#: Question words that name no printed thing a year could stand beside.
_YEAR_WORDS = frozenset(["year", "was", "were", "did", "when", "photo", "picture", "image", "taken", "made", "this",
                         "which", "what", "vintage"])
#: What happened in the year asked: its line is the one naming it ("Founded 1890", "Est. 1890").
_YEAR_EVENT = re.compile(r"\b(founded|established|est\b\.?|built|opened|since)", re.I)
_YEAR = re.compile(r"(?<![\w./:-])(?:1[7-9]|20)\d{2}(?![\w./:-])")
_PHONE_Q = re.compile(r"\b(phone|telephone|tel|call|mobile|hotline|fax)\b", re.I)
#: Not a run of digits inside a code: "PW 8831 2209 57GB" is a tracking number, no phone number.
_PHONE = re.compile(r"(?<![A-Za-z0-9])\+?\(?\d[\d\s().-]{5,}\d(?![A-Za-z])(?!\s*\w*\d)")
#: "which phone charges the fastest": one of several phones, not a number to call.
_WHICH_PHONE = re.compile(r"\bwhich\s+(?:\w+\s+)?(?:phones?|mobiles?)\b", re.I)


def _dialable(span: str) -> bool:
    """Whether ``span`` can be a phone number: six digits or more, and not an axis's ticks ("0 10 20 30 40": four
    or more numbers evenly spaced, none written with a leading zero as phone numbers are)."""
    groups = re.findall(r"\d+", span)
    if sum(len(g) for g in groups) < 6:
        return False
    values = [int(g) for g in groups]
    steps = {b - a for a, b in zip(values, values[1:], strict=False)}
    ticks = len(values) >= 4 and len(steps) == 1 and not any(g.startswith("0") and len(g) > 1 for g in groups)
    return not ticks


_PRICE_Q = re.compile(r"\bprice\b|\bcosts?\b|\bhow much\b|\b(?:fees?|fares?|charges?)\b|"
                      r"\b(?:hourly|daily|weekly|nightly|monthly) rate\b|\brate per\b", re.I)
_NAMED_NUMBER = re.compile(r"\b(?P<noun>[a-z]+)(?:'s)?\s+(?:number|no\.?|#)(?!\w)", re.I)
_WHICH_NUMBER = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(?:number|digits?|code)\b|\bnumber (?:is )?(?:written|"
                           r"printed|shown)\b|\bwhat(?:'s| is) the number\b", re.I)
_WHICH_NOUN = re.compile(r"\b(?:what|which)\s+(?P<noun>[a-z]{3,})\b", re.I)
_NUMBER = re.compile(r"(?<![\w.,$€£'’`-])\d+[A-Z]?(?![\w.,'’`]\d)")
#: A comparison among things ("which day had the most …"): no one printed span answers it.
_COMPARES = re.compile(r"\b(?:most|least|highest|lowest|largest|smallest|biggest|fewest|greatest|maximum|minimum|"
                       r"peak|more|fewer|less|higher|lower)\b", re.I)
#: Nouns whose "which …?" asks for a name (a weekday, a month), never a number printed after the word.
_NAMED_NOT_NUMBERED = {"day", "days", "month", "months", "weekday", "season", "quarter", "year", "week"}
#: A yes/no about printed words is "yes" at this similarity of the best-matching words, "no" below ``ABSENT``.
PRESENT, ABSENT = 0.85, 0.5


def asks_for_span(question: str, yesno: bool = False) -> bool:
    """Whether ``question`` may ask about one part of the printed text (cheap: its words only)."""
    if yesno:
        return bool(_PRINTED_YESNO.search(question))
    return any(p.search(question) for p in (TITLE_QUESTION, DISTANCE_Q, _QUANTITY_Q, _PERCENT_Q, _YEAR_Q, _PHONE_Q,
                                            _NAMED_NUMBER, _PRICE_Q, _WHICH_NUMBER, _WHICH_NOUN, CHEAPER_Q))


def printed_answer(question: str, lines: list[OcrLine], image: Image.Image | None,
                   yesno: bool = False) -> PrintedAnswer | None:
    """The smallest span of ``lines`` that answers ``question``, or None when the question is not about one part
    of the printed text. ``yesno``: the question asks for Yes or No (``skills.answer_form``)."""
    if not lines:
        return None
    # The task alone: options and the answer-format sentence ("Answer with the option's letter …") name nothing
    # printed, and their words would otherwise be looked for on the sign.
    question = task_text(question)[0] or question
    if yesno:
        return _yes_no(question, lines, image) if _PRINTED_YESNO.search(question) else None
    if TITLE_QUESTION.search(question):
        if part := _OTHER_TITLE.search(question):
            return PrintedAnswer(None, 0.0, "title", missing=f"the question asks for the title of one part (the "
                                 f"{part.group(0)}), and the tools tell only the top line of the whole apart")
        if _IN_THE_TITLE.search(question) and not _TITLE_WORDING.search(question):
            return PrintedAnswer(None, 0.0, "title", missing="the question asks for one thing named in the title, "
                                 "and the tools tell only the title as a whole apart, not which of its words it is")
        return _title(lines, image)
    pieces, lines = lines, row_lines(lines)  # the engine splits a row at wide gaps ("UNIVERSITY 55" | "km")
    text = " ".join(line.text for line in lines)
    beside = named_beside(question, lines, image)
    if beside is not None:
        return beside
    if (cheaper := CHEAPER_Q.search(question)) is not None:
        if re.search(r"\b(?:not|never|isn't|aren't|doesn't|don't|except)\b", question, re.I):
            return PrintedAnswer(None, 0.0, "prices", missing="the question asks which is not the cheaper (dearer) "
                                                              "one, a negation the comparison of prices does not read")
        return compare_prices(cheaper, lines, image, pieces)
    if DISTANCE_Q.search(question):
        return near_named(question, lines, image, DISTANCE, "distance")
    if _QUANTITY_Q.search(question):
        # "how heavy is the tent" over a lone "12.5 kg" (the whole pack's): a quantity is the named thing's only
        # where the thing is named beside it, as a distance is.
        return near_named(_QUANTITY_Q.sub(" ", question), lines, image, _QUANTITY, "quantity")
    if _PERCENT_Q.search(question) and not _NOT_ONE_PERCENTAGE.search(question):
        return _percentage(question, lines, image)
    if _YEAR_Q.search(question):
        # A year on a line of its own (a vintage): "SINCE 1962", "2014 ELM ST" or a title's "since 2016" are not
        # the year of what the question asks about.
        bare = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                if line.text.strip(" .,:;") == m.group(0)]
        # Or on the line naming what the question asks about: "Harvest 2022" for "What year was the harvest?".
        subject = [w for w in words_of(question) if w not in STOP_WORDS and w not in _YEAR_WORDS and len(w) > 2]
        on_its_line = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                       if subject and all(fuzzy_in(w, line.text) for w in subject)]
        event = _YEAR_EVENT.search(question)
        if event:
            # "What year was the winery founded?": the year beside "Founded" (or "Est."), never the vintage.
            bare = []
            said = event.group(1)[:3].lower()
            on_its_line = [(m.group(0), line) for line in lines for m in _YEAR.finditer(line.text)
                           if any(e.group(1)[:3].lower() == said for e in _YEAR_EVENT.finditer(line.text))]
        # A vintage on a line of its own comes first: "Gold Medal Wine Awards 2019" names the wine too.
        return chosen(bare or on_its_line, image, "year printed on a line of its own" if bare
                      else "year printed on the line naming " + " ".join(subject))
    if _PHONE_Q.search(question) and not _WHICH_PHONE.search(question):
        return _unique(lines, image, _PHONE, "phone number", _dialable)
    named = _NAMED_NUMBER.search(question)
    if named and named.group("noun").lower() not in ("what", "which", "the", "a", "phone"):
        noun = named.group("noun")
        hits = _numbers_after(noun, lines, pieces)
        if hits:
            return _after(noun, hits, image)
        if re.search(rf"\b{re.escape(noun)}\b", text, re.I) is None and not _WHICH_NUMBER.search(question):
            return None  # the noun is not printed: perhaps a document label read elsewhere
    if _PRICE_Q.search(question) and not asks_a_difference(question):
        # "by how much did the fare rise?" asks a difference of prices, not one printed
        return near_named(question, lines, image, PRICE, "price", pieces)
    if _WHICH_NUMBER.search(question) or named:
        return _unique(lines, image, _NUMBER, "number", lambda s: True)
    # "Which exit does this sign point to?": a printed word the question names, followed by a number or code.
    which = _WHICH_NOUN.search(question)
    # "Which day had the most sign-ups?" compares days: the number after a printed "day" names none of them.
    if which and not _COMPARES.search(question) and which.group("noun").lower() not in _NAMED_NOT_NUMBERED:
        noun = which.group("noun")
        hits = _numbers_after(noun, lines, pieces)
        if hits:
            return _after(noun, hits, image)
    return None


def _after(noun: str, hits: list[tuple[str, OcrLine]], image: Image.Image | None) -> PrintedAnswer:
    """The number printed after ``noun``; never a range of times for "what time" ("Till what time is it closed?"
    over "Time: 11.30-17.00" asks for one of its ends)."""
    if noun.lower() == "time" and all(_TIME_RANGE.search(span) for span, _ in hits):
        return PrintedAnswer(None, 0.0, "time", missing="a range of times is printed, and the question asks for one "
                                                        "time")
    return chosen(hits, image, f"the number after '{noun}'")


#: "11.30-17.00", "9:00 – 15:30": two times joined into a range.
_TIME_RANGE = re.compile(r"\d[.:]?\d*\s*(?:[ap]\.?m\.?)?\s*(?:-|–|—|to)\s*\d", re.I)


def _numbers_after(noun: str, lines: list[OcrLine], pieces: list[OcrLine]) -> list[tuple[str, OcrLine]]:
    """The numbers or codes printed right after ``noun`` ("Exit 17", "Gate: B14", "Total: 2,012"), whole: a
    thousands separator does not end the number. Where the row was read in ``pieces``, the number's piece must
    follow the noun's closely: a boarding pass's "SEAT" heads a column, and the "3" far to its right is the group."""
    # "Platforms 3 and 4": every number the noun lists, as printed, never the first alone.
    # Never the hour of "12:18", nor the start of a number misread through a strike ("66'683" for "£89.99").
    one = r"[A-Z]?\d+(?:,\d{3})*(?:\.\d+)?[A-Z]?(?![\w.,:'’`]?\d)\b"
    pattern = re.compile(rf"\b{re.escape(noun)}\s*(?:no\.?|number|#|:)?\s*({one}(?:\s*(?:,|&|and|or|/|-|to)\s*{one})*)",
                         re.I)
    return [(m.group(1), line) for line in lines for m in pattern.finditer(line.text)
            if _close_after(noun, m.group(1), line, pieces)]


def _close_after(noun: str, number: str, row: OcrLine, pieces: list[OcrLine]) -> bool:
    """Whether ``number`` is in the piece of ``row`` that holds ``noun``, or in the next piece of the row, no more
    than two text heights to the right of it."""
    inside = sorted((p for p in pieces if p.box.y0 >= row.box.y0 - 1 and p.box.y1 <= row.box.y1 + 1
                     and p.box.x0 >= row.box.x0 - 1 and p.box.x1 <= row.box.x1 + 1), key=lambda p: p.box.x0)
    named = [i for i, p in enumerate(inside) if re.search(rf"\b{re.escape(noun)}\b", p.text, re.I)]
    if not named:
        return True  # the row is not made of the pieces read: nothing to tell them apart by
    for i in named:
        piece = inside[i]
        if re.search(rf"\b{re.escape(noun)}\b.*{re.escape(number)}", piece.text, re.I):
            return True
        if i + 1 < len(inside) and inside[i + 1].text.strip().startswith(number.split()[0]):
            following = inside[i + 1]
            height = max(1, piece.box.y1 - piece.box.y0)
            if following.box.x0 - piece.box.x1 <= 2 * height:
                return True
    return False


def _percentage(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer:
    """The percentage on the one line that prints every word the question names ("alcohol" as "vol"), never the
    only percentage printed whatever it is about ("30% OFF" for "What percentage of the shoppers wear hats?")."""
    def names(line: OcrLine, word: str) -> bool:
        return any(fuzzy_in(spelling, line.text) for spelling in _PERCENT_NAMES.get(word, (word,)))
    asked = [w for w in words_of(question) if w not in _PERCENT_WORDS and w not in STOP_WORDS and len(w) > 2]
    # Words printed nowhere ("tag", "advertise") name the question's setting, not the percentage's line.
    named = [w for w in asked if any(names(line, w) for line in lines)]
    if not named:
        return PrintedAnswer(None, 0.0, "percentage", missing="the question names nothing printed beside a "
                                                              "percentage" if asked else
                             "the question does not say what the percentage is of")
    hits = [(m.group(0).strip(), line) for line in lines for m in _PERCENT.finditer(line.text)
            if all(names(line, w) for w in named)]
    return chosen(hits, image, f"percentage on the line naming {' '.join(named)}")


def _yes_no(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    target = _yes_no_target(question)
    if not target:
        return None
    # Words a sign sets apart on one row ("24" beside "tablets") are one phrase to a reader.
    rows = [OcrLine(" ".join(line.text for line in row), Box(min(line.box.x0 for line in row),
                    min(line.box.y0 for line in row), max(line.box.x1 for line in row),
                    max(line.box.y1 for line in row)), min(line.confidence for line in row))
            for row in order_lines(lines) if len(row) > 1]
    best, best_line = best_match(target, lines + rows)
    weakest_line = min(line.confidence for line in lines)
    features = {"printed_match": round(best, 3), "reading_min_line": round(weakest_line, 3)}
    numbers = _digits(target)
    if best >= PRESENT and not numbers <= _digits(best_line.text):
        # "400 mg tablets" against a printed "200 mg Tablets": alike as strings, but a number is never an OCR slip
        # away from another; the words are printed with a number other than the one asked.
        return PrintedAnswer("No", round(min(0.95, best_line.confidence), 3),
                             f"'{target}' is printed with another number: {best_line.text!r}", features=features)
    if best >= PRESENT:
        score = span_score(image, best_line, target)
        features["span_min_char"] = round(score, 3)
        return PrintedAnswer("Yes", round(min(0.97, score * best), 3), f"'{target}' is printed: {best_line.text!r}",
                             features=features)
    if numbers and numbers <= set().union(*(_digits(line.text) for line in lines)):
        # "they close at 18:30 on weekdays" over "Mon - Fri 7:00 - 18:30": its numbers are printed, its words are
        # not; the sign may say it in other words.
        return PrintedAnswer(None, 0.0, "not printed", missing=f"'{target}' is not printed as such, but its numbers "
                                                               "are: the text may say it in other words",
                             features=features)
    if best < ABSENT and _ABOUT_CONTENT.search(question):
        # "Does the label contain sugar?" may be printed in other words (CANE SYRUP): only a printed match settles it.
        return PrintedAnswer(None, 0.0, "not printed", missing=f"no printed words resemble '{target}', but the text "
                                                               "may say it in other words", features=features)
    if best < ABSENT:
        # "No" is only as sure as the whole reading: a word the recogniser garbled could be the one asked about.
        return PrintedAnswer("No", round(min(0.95, weakest_line), 3), f"no printed words resemble '{target}'",
                             features=features)
    return PrintedAnswer(None, 0.0, "unclear", missing=(f"the closest printed words ({best_line.text!r}) neither "
                                                        f"clearly match nor clearly differ from '{target}'"),
                         features=features)


def _digits(text: str) -> set[str]:
    """The numbers in ``text`` as runs of digits ("18:30" -> "1830", "5g" -> "5")."""
    return {re.sub(r"\D", "", m) for m in re.findall(r"\d+(?:[.,:]\d+)*", text)}


def best_match(target: str, lines: list[OcrLine]) -> tuple[float, OcrLine]:
    """How closely ``target``'s words are printed (difflib ratio of the best window of as many words in one line,
    case and punctuation ignored) and the line where; ``lines`` must not be empty."""
    words = words_of(target)
    best, best_line = 0.0, lines[0]
    for line in lines:
        tokens = words_of(line.text)
        for start in range(max(1, len(tokens) - len(words) + 1)):
            window = "".join(tokens[start:start + len(words)])
            ratio = SequenceMatcher(None, "".join(words), window, autojunk=False).ratio()
            if ratio > best:
                best, best_line = ratio, line
    return best, best_line


def _yes_no_target(question: str) -> str | None:
    for pattern in _YESNO_TARGETS:
        match = pattern.search(question.strip())
        if match:
            target = (match.groupdict().get("t") or match.group(1)).strip(" ?.!\"'“”‘’")
            target = re.sub(r"\s+(?:on|in|at)\s+(?:the|this|that)\s+\w+$", "", target, flags=re.I)
            if target and len(target.split()) <= 6:
                return target
    return None


def _title(lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer:
    rows = order_lines(lines)
    top = [line for line in rows[0] if sum(c.isalpha() for c in line.text) >= 2]
    rest = [line for row in rows[1:] for line in row]
    if not top:
        return PrintedAnswer(None, 0.0, "title", missing="no line of words is printed above the rest to be a title")
    height = max(line.box.y1 - line.box.y0 for line in top)
    left, right = min(line.box.x0 for line in top), max(line.box.x1 for line in top)
    # Set apart from the text under it; a chart's top tick label beside the title, left of it, is not under it.
    under = [line for line in rest if line.box.x1 > left and line.box.x0 < right]
    gap = min((line.box.y0 for line in under), default=10 ** 6) - max(line.box.y1 for line in top)
    title = " ".join(line.text for line in top)
    scores = [span_score(image, line, line.text) for line in top]
    features = {"title_gap_heights": round(gap / max(1.0, height), 3), "span_min_char": round(min(scores), 3)}
    if gap < -0.25 * height:
        return PrintedAnswer(None, 0.0, "title", missing=f"the top line {title!r} is not set apart from the text "
                                                         "below it, so it may not be a title", features=features)
    return PrintedAnswer(title, round(min(0.97, min(scores)), 3), f"the top line of the text: {title!r}",
                         features=features)


def _unique(lines: list[OcrLine], image: Image.Image | None, pattern: re.Pattern[str], what: str,
            keep) -> PrintedAnswer:  # noqa: ANN001 - a predicate on the span
    hits = [(m.group(0).strip(), line) for line in lines for m in pattern.finditer(line.text) if keep(m.group(0))]
    return chosen(hits, image, f"the {what} printed")
