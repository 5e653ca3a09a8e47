"""The part of a question that says what it is about, apart from how to answer it and from its options.

Routing (Level 1 and Level 2) matches keywords against this text. Sentences that say how to answer ("Answer with
the option's letter from the given choices directly.", "Put your answer in curly brackets, e.g., {2}.") describe
the answer's form, not the task: "letter" in them once sent every multiple-choice question to the circled-letter
tool. The options of a multiple-choice question are statements about the image ("salaries above 18 thousand",
"the red segment"); their words are kept apart so that routing can weigh them below the stem's.
"""

from __future__ import annotations

import re

from skills.answer_form import parse_options

# "Answer with ...", "Please answer using ...", "Put your answer in ...", "Choose the correct option.",
# "Respond with a single word." — up to the end of the sentence (an "e.g." inside it does not end it).
_INSTRUCTION = re.compile(
    r"(?:^|(?<=[.!?:\n]))[ \t]*(?:please[ \t]+)?(?:answer[ \t]+(?:with|using|in|by|the[ \t]+question[ \t]+"
    r"(?:with|using))|respond|reply|put[ \t]+your[ \t]+answer|give[ \t]+your[ \t]+answer|"
    r"(?:choose|select|pick)[ \t]+(?:the|one|from|an?)\b)(?:e\.g\.|i\.e\.|[^.!?\n]|\.(?=\S))*[.!?]?", re.IGNORECASE)
_OPTION_START = re.compile(r"(?:^|\n)[ \t]*\(?A[.):][ \t]|[ \t]\(A\)[ \t]|(?<=[?:])[ \t]+A[.)][ \t]", re.MULTILINE)


def task_text(question: str) -> tuple[str, str]:
    """``(stem, options)``: what ``question`` asks without its answer-format instructions, and the text of its
    multiple-choice options ("" when it offers none)."""
    text = _INSTRUCTION.sub(" ", question)
    if not parse_options(question):
        return text.strip(), ""
    start = _OPTION_START.search(text)
    if start is None:
        return text.strip(), ""
    return text[: start.start()].strip(), text[start.start():].strip()
