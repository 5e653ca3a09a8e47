"""Multiple-choice questions about printed text: the one offered option the OCR reading settles.

A sign, a label or a poster asked about with lettered options ("What does the sign say? A. EXIT B. ENTRANCE")
has its answer among the options, not in the form of a transcription. ``choose_printed_option`` picks a letter
only for questions about the text itself, never its meaning ("What does the sign prohibit?" is about meaning: a
sign reading PARKING does not prohibit parking), in one of two ways:

- the question asks for one part of the text (``printed_answer``: a title, a distance, an exit number, a price;
  or the hours and facts of ``opening_hours`` and ``scene_facts``): the option that is that span, up to case, spacing and punctuation; no option or several: no answer;
- the question asks what is printed ("What is written on the label?", "Which word appears on the sign?"): the one
  option whose words are printed (similarity ``PRESENT`` or more; over two or three consecutive lines too) while
  every other option has a word printed nowhere (``WORD_ABSENT``). An option printed as part of another printed
  option gives way to it ("PARKING" to "NO PARKING"). Two options printed, or one no word of which is clearly
  missing, is no answer.

A question that negates ("not", "except", "never") or asks for a judgement ("most likely") is never answered
here. Each option's verdict is written as ``A: true`` / ``B: false`` lines, the form the evidence reads to count
the options ruled out.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from PIL import Image

from skills.answer_form import parse_options
from skills.ocr.opening_hours import hours_answer
from skills.ocr.printed import PRESENT, TITLE_QUESTION, best_match, printed_answer
from skills.ocr.scene_facts import scene_fact
from skills.ocr.spans import PrintedAnswer, own_record, span_score
from skills.ocr.spans_by_name import CHEAPER_Q
from skills.question_text import task_text
from vision_tools.image import Box
from vision_tools.text import OcrLine
from vision_tools.text.ocr import order_lines

#: A word of an option whose best likeness to any printed word is below this is not printed (an OCR slip in a
#: word of four letters or more still scores 0.75).
WORD_ABSENT = 0.7
#: Questions that ask what is printed, not what it means.
_ASKS_PRINTED = re.compile(r"\b(?:say|says|said|read|reads|written|printed|spell|spells|spelled|text|word|words|"
                           r"wording|appears?|shown|displayed|visible|labell?ed|title|heading|name|named|"
                           r"mentioned|listed)\b", re.I)
#: Wordings no reading settles by matching words: negation, exclusion, judgement, meaning.
_NEGATES = re.compile(r"\b(?:not|never|no longer|except|isn't|aren't|doesn't|don't|cannot|can't|without|missing|"
                      r"absent|likely|probably|best|worst|most|least|misspelled|misspelt|wrong|incorrect|"
                      r"mean|means|meaning|implies|suggests?|prohibit\w*|allow\w*|warn\w*|cheap\w*|pric(?:ey|iest)|"
                      r"expensive|closest|nearest|farthest|furthest)\b", re.I)
#: "Which is NOT cheaper": a negation, which a comparison of two prices does not read.
_NEGATED = re.compile(r"\b(?:not|never|isn't|aren't|doesn't|don't|except)\b", re.I)
#: Questions about what a chart or diagram shows ask about its data, not its printed words (a chart's title is
#: still answered as one part of the text).
_DATA = re.compile(r"\b(?:chart|graph|plot|diagram|map|axis|axes|bars?|lines?|legend|data|values?|trends?|percent\w*|"
                   r"rates?|shares?|increas\w*|decreas\w*|higher|highest|lower|lowest|more|less|growth|chang\w*|"
                   r"years?|compar\w*|average|total|statements?|conclu\w*|proportion|pattern|segments?|"
                   r"scatter\w*)\b", re.I)
#: Attributes of the text other than its words (colour, size, font, language, place, count): an option that is
#: printed is no answer to them ("What colour is the text? A. Red" on a sign reading RED LINE).
_ATTRIBUTE = re.compile(r"\b(?:colou?rs?|size|bigger|biggest|larger|largest|smaller|smallest|font|typeface|bold|"
                        r"italic|language|translat\w*|where|why|how|when|left|right|top|bottom|above|below|under|"
                        r"beside|next to|between|before|after|count|times|first|last)\b", re.I)


def choose_printed_option(question: str, lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer | None:
    """The option letter the reading settles, a ``PrintedAnswer`` without an answer saying why none is, or None
    when ``question`` offers no options or is not about the printed text."""
    options = parse_options(question)
    task = task_text(question)[0] or question
    # "Which is cheaper: the honey or the bread?" compares the two prices read, which no matching of words settles.
    compared = CHEAPER_Q.search(task) is not None and not _NEGATED.search(task)
    if not options or not lines or (_NEGATES.search(task) and not compared) or (
            _DATA.search(task) and not TITLE_QUESTION.search(task)):
        return None
    span = printed_answer(question, lines, image)
    if span is None or span.answer is None:
        # "Which days does this apply? A. Weekends B. Mon - Fri": the hours or a stated fact, as an option.
        # A reading rule keeps its own record as an option too (``skills.ocr.spans.own_record``).
        stated = own_record(hours_answer(question, lines, image), "opening hours") \
            or own_record(scene_fact(question, lines, image), "a fact a sign states")
        span = stated if stated is not None and stated.answer is not None else span
    if span is not None and span.answer is not None:
        return _option_for_span(span, options)
    if not _ASKS_PRINTED.search(task) or _ATTRIBUTE.search(task):
        return None
    return _option_printed(options, lines, image)


def _option_for_span(span: PrintedAnswer, options: dict[str, str]) -> PrintedAnswer:
    key = _plain(span.answer or "")
    equal = [letter for letter, text in options.items() if _plain(text) == key]
    verdicts = "\n".join(f"{letter}: {'true' if letter in equal else 'false'}" for letter in options)
    if len(equal) != 1:
        which = "no option is" if not equal else f"options {', '.join(equal)} are all"
        return PrintedAnswer(None, 0.0, span.how, missing=f"the printed text gives {span.answer!r}, and {which} "
                                                          "that text", features=span.features, rule=span.rule)
    return PrintedAnswer(equal[0], span.confidence, f"{span.how}; option {equal[0]} is that text\n{verdicts}",
                         features={**span.features, "options_ruled_out": 1.0}, rule=span.rule)


def _option_printed(options: dict[str, str], lines: list[OcrLine], image: Image.Image | None) -> PrintedAnswer:
    matches = {letter: best_match(text, _with_runs(lines)) for letter, text in options.items() if _plain(text)}
    printed_words = {w for line in lines for w in _plain(line.text).split()}
    # Printed: the option's words read together, each of them printed ("NO PARKING" is not printed on a sign
    # reading PARKING, although the letters nearly all are).
    present = [letter for letter, (ratio, _) in matches.items()
               if ratio >= PRESENT and not _has_unprinted_word(options[letter], printed_words)]
    fullest = _containing_all(present, options)
    absorbed = [letter for letter in present if letter != fullest] if fullest is not None else []
    if fullest is not None:  # "NO PARKING" printed: "PARKING" is printed as part of it, the sign says the whole
        present = [fullest]
    ruled_out = absorbed + [letter for letter in matches if letter not in present and letter not in absorbed
                            and _has_unprinted_word(options[letter], printed_words)]
    unclear = [letter for letter in matches if letter not in present and letter not in ruled_out]
    features = {"printed_match": round(max((r for r, _ in matches.values()), default=0.0), 3),
                "options_ruled_out": round(len(ruled_out) / max(1, len(options) - 1), 3)}
    if len(present) != 1 or unclear or len(matches) != len(options):
        if not present:
            missing = "none of the options is printed in the image"
        elif len(present) > 1 and all(matches[letter][0] == 1.0 for letter in present):
            missing = f"options {', '.join(present)} are all printed, and the question does not say which it means"
        elif len(present) > 1:
            missing = (f"options {', '.join(present)} resemble the printed words too closely to tell apart (the "
                       "reading may hold a misread letter)")
        else:
            missing = (f"option {present[0]} is printed, but option(s) {', '.join(unclear or ['?'])} resemble "
                       "the printed words too closely to rule out")
        return PrintedAnswer(None, 0.0, "options matched against the reading", missing=missing, features=features)
    letter = present[0]
    ratio, line = matches[letter]
    score = span_score(image, line, options[letter])
    verdicts = "\n".join(f"{other}: {'true' if other == letter else 'false'}" for other in options)
    features["span_min_char"] = round(score, 3)
    return PrintedAnswer(letter, round(min(0.97, score * ratio), 3),
                         f"option {letter} ({options[letter]!r}) is printed: {line.text!r}; every other option has "
                         f"a word printed nowhere\n{verdicts}", features=features)


def _with_runs(lines: list[OcrLine]) -> list[OcrLine]:
    """``lines`` and every run of two or three consecutive lines in reading order joined as one (a sign prints
    "CAUTION" over "WET FLOOR"; the option says "Caution wet floor")."""
    ordered = [line for row in order_lines(lines) for line in row]
    runs = []
    for size in (2, 3):
        for start in range(len(ordered) - size + 1):
            part = ordered[start:start + size]
            box = Box(min(p.box.x0 for p in part), min(p.box.y0 for p in part), max(p.box.x1 for p in part),
                      max(p.box.y1 for p in part))
            runs.append(OcrLine(" ".join(p.text for p in part), box, min(p.confidence for p in part)))
    return [*lines, *runs]


def _containing_all(present: list[str], options: dict[str, str]) -> str | None:
    """The one printed option whose words hold every other printed option's words, when there is one."""
    if len(present) < 2:
        return None
    words = {letter: set(_plain(options[letter]).split()) for letter in present}
    fullest = [a for a in present if all(words[b] < words[a] for b in present if b != a)]
    return fullest[0] if len(fullest) == 1 else None


def _has_unprinted_word(option: str, printed: set[str]) -> bool:
    """Whether a word of ``option`` resembles no printed word even allowing for an OCR slip ("SOUTH" on a sign
    reading NORTH GATE; "EXlT" still resembles EXIT)."""
    return any(max((SequenceMatcher(None, word, seen, autojunk=False).ratio() for seen in printed), default=0.0)
               < WORD_ABSENT for word in _plain(option).split())


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
