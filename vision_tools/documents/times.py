"""The time a receipt or an invoice was issued: "What time was this receipt printed?".

A receipt prints the time of the sale beside "Time", or unlabelled after the date ("14/05/2024 08:42"). The labelled
value wins (a label naming another time, "Pickup time", does not); otherwise, on a page that looks like a receipt or
invoice, the one time printed on it, on the date's line. Two different times and no label ("Open 8:00 - 18:00" above
the sale's time), or one time away from the date ("Collect after 17:00"), and the question has no answer here.
"""

from __future__ import annotations

import re

from vision_tools.documents.labels import find_label_value
from vision_tools.documents.layout import Layout
from vision_tools.documents.patterns import TIME, dates_in
from vision_tools.documents.result import FieldAnswer

FIELD = "issue time"
#: Words a label of the sale's time may print ("Time", "Date/Time", "Txn time"); "Pickup time" is another time.
_ISSUE_LABEL_WORDS = frozenset(["time", "date", "txn", "transaction", "trans", "print", "printed", "issue", "issued",
                                "sale", "tm"])


def find_issue_time(layout: Layout, looks_like_document: bool) -> FieldAnswer:
    """The time printed beside a "Time" label, else the only time on a document page."""
    labelled = find_label_value(layout, "time")
    label_words = set(re.findall(r"[a-z]+", (labelled.label or "").lower()))
    if labelled.value is not None and label_words <= _ISSUE_LABEL_WORDS:
        return FieldAnswer(FIELD, labelled.value, labelled.confidence, labelled.boxes, labelled.label,
                           labelled.label_box, labelled.how)
    if not looks_like_document:
        return FieldAnswer(FIELD, None, 0.0, missing="no 'time' label is printed, and the image does not look like "
                                                     "a receipt or invoice whose one time is its time of issue")
    # "3.20" fits the time pattern too: a page's prices are never its time.
    hits = [(match.group(0).strip(), placed) for placed in layout.lines for match in TIME.finditer(placed.text)
            if ":" in match.group(0) or match.group(0)[-1:] in "mM"]
    spans = list(dict.fromkeys(span for span, _ in hits))
    if len(spans) != 1:
        found = ", ".join(spans[:4]) if spans else "none"
        return FieldAnswer(FIELD, None, 0.0, missing=f"no 'time' label is printed, and the page prints "
                                                     f"{len(spans) or 'no'} time(s) ({found}) rather than one")
    span, placed = hits[0]
    if not dates_in(layout.row_text(placed.row)):
        # A sale's time is printed with its date; a lone time elsewhere is a notice's ("Collect after 17:00").
        return FieldAnswer(FIELD, None, 0.0, missing=f"the one time printed ({span}) is not beside the date, so it "
                                                     "may not be the time of the sale")
    return FieldAnswer(FIELD, span, round(placed.line.confidence, 4), [placed.line.box],
                       how=f"the only time printed on the page, beside the date in {placed.text!r}")
