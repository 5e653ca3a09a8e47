"""Printed labels and the values beside them: matching a label despite OCR slips ("Totak", "SUB-TOTAL/(EX)"), and
finding its value on the same line, right of it on its row, or on the line below.

``find_label_value(layout, "invoice number")`` answers "what is the X" for any printed label: the label is matched
through a few abbreviations receipts use (number -> No; invoice -> Inv / Bill / Receipt; tax -> GST / SST),
and a value that does not fit what the label asks for (an amount for "tax", a digit for a "number") is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from vision_tools.documents.layout import Layout, Placed
from vision_tools.documents.patterns import QUANTITY, TIME, amounts_in, dates_in
from vision_tools.documents.result import Candidate, FieldAnswer

#: Words receipts print in labels; a misread word within one or two letters of these is taken for them.
LABEL_WORDS = (
    "total", "subtotal", "sub", "grand", "nett", "net", "amount", "amt", "due", "payable", "payment", "paid",
    "rounding", "rounded", "round", "adjustment", "adj", "cash", "change", "tendered", "tax", "gst", "sst", "vat",
    "incl", "inclusive", "including", "includes", "excl", "exclusive", "excluding", "qty", "quantity", "items",
    "item", "count", "discount", "disc", "balance", "sales", "card", "credit", "debit", "visa", "master",
    "invoice", "receipt", "cashier", "date", "time", "summary", "service", "charge", "deposit", "points",
    "supplies", "before", "after", "jumlah", "bill", "table", "payable", "savings", "number")
_WORD = re.compile(r"[a-z0-9%]+")

#: Abbreviations and synonyms of the words a question may use for a label, best first.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "number": ("no", "number", "num", "nbr"),
    "no": ("no", "number"),
    "invoice": ("invoice", "inv", "bill", "receipt", "doc", "document"),
    "receipt": ("receipt", "invoice", "inv", "bill", "doc"),
    "bill": ("bill", "invoice", "inv", "receipt"),
    "tax": ("tax", "gst", "sst", "vat"),
    "gst": ("gst", "tax", "sst"),
    "vat": ("vat", "tax", "gst"),
    "phone": ("tel", "phone", "telephone", "hp", "h/p", "mobile"),
    "telephone": ("tel", "telephone", "phone"),
    "cashier": ("cashier", "operator", "served by", "csh", "staff"),
    "discount": ("discount", "disc"),
    "subtotal": ("subtotal", "sub total", "sub-total"),
    "quantity": ("qty", "quantity"),
    "rounding": ("rounding", "rounding adj", "rounding adjustment", "round"),
    "change": ("change", "change due", "change amt"),
    "weight": ("weight", "wt", "wgt"),
    "reference": ("reference", "ref"),
    "expiry": ("expiry", "exp", "expires", "expiration"),
    "account": ("account", "acct", "acc", "a/c"),
    "batch": ("batch", "lot"),
    "department": ("department", "dept"),
    # Event words of signs and tickets ("Boarding 14:35", "Departs 15:05").
    "boarding": ("boarding", "board", "boards"),
    "departure": ("departure", "departs", "depart", "dep", "departing"),
    "arrival": ("arrival", "arrives", "arrive", "arr"),
    "closes": ("closes", "close", "closing", "closed"),
}
#: Words a label may leave unprinted after its first word ("Invoice: 1054" for the invoice number).
FIELD_WORDS = frozenset(["number", "no", "num", "nbr", "code", "id", "ref", "date", "time", "amount", "name"])
#: Labels whose value is a money amount.
MONEY_LABELS = frozenset(["tax", "gst", "sst", "vat", "change", "cash", "discount", "subtotal", "rounding",
                          "service charge", "deposit", "balance", "tip", "tendered", "paid", "amount",
                          "service tax", "sub total", "total tax", "total gst"])

#: A label holding one of these words names a weight or volume ("net weight", "contents"): its value must be one.
QUANTITY_WORDS = frozenset(["weight", "wt", "volume", "contents", "capacity", "mass"])

#: A label holding one of these words names a money amount ("sale price", "delivery fee"): its value must be one.
MONEY_WORDS = frozenset(["price", "cost", "fee", "fare", "charge", "amount", "total", "tax", "deposit", "balance",
                         "discount", "tip", "paid", "cash", "savings"])


def label_words(text: str) -> list[str]:
    """The words of ``text`` in lower case, each misread label word put right ("Totak" -> "total")."""
    return list(_label_words(text))


@lru_cache(maxsize=8192)
def _label_words(text: str) -> tuple[str, ...]:
    words: list[str] = []
    last_end = -2
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        # OCR splits a word with a stray mark ("CHA,NGE"): the halves are joined when only together they are a label
        # word ("Incl.GST" stays two words); never across a space, where two names may read as one ("SU MAY").
        if (words and match.start() == last_end + 1 and not text[last_end].isspace() and words[-1] not in LABEL_WORDS
                and _closest_label_word(word) not in LABEL_WORDS
                and _closest_label_word(words[-1] + word) in LABEL_WORDS):
            words[-1] = _closest_label_word(words[-1] + word)
        else:
            words.append(_closest_label_word(word))
        last_end = match.end()
    return tuple(words)


@lru_cache(maxsize=8192)
def _closest_label_word(word: str) -> str:
    if len(word) < 4 or word in LABEL_WORDS or any(ch.isdigit() for ch in word):
        return word
    best, best_ratio = word, 0.0
    for known in LABEL_WORDS:
        if abs(len(known) - len(word)) > 2:
            continue
        ratio = SequenceMatcher(None, word, known, autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = known, ratio
    return best if best_ratio >= 0.8 else word


@dataclass(frozen=True)
class LabelHit:
    """Where a label was printed: the line, the end of the label inside it, and how well it matched."""

    placed: Placed
    end: int  # characters of the line's text taken by the label
    score: float
    printed: str
    across_rows: bool = False  # the label's words start on the row above (a sign's "SPEED" over "LIMIT")


def find_labels(layout: Layout, variants: list[str], min_score: float = 0.85) -> list[LabelHit]:
    """Lines that start with one of ``variants`` (a label read as words; best variant first, later ones a
    little weaker), best first."""
    hits: list[LabelHit] = []
    for placed in layout.lines:
        words = label_words(placed.text)
        for rank, variant in enumerate(variants):
            wanted = label_words(variant)
            found = _match_start(placed.text, words, wanted)
            if found is None:
                continue
            end, quality = found
            score = quality * (1.0 - 0.01 * min(rank, 10))  # the asked words a little above abbreviations
            if score >= min_score:
                hits.append(LabelHit(placed, end, score, placed.text[:end].strip()))
                break
        hits += _label_over_two_rows(layout, placed, words, variants[0])
    hits.sort(key=lambda hit: (-hit.score, hit.placed.index))
    return hits


def _label_over_two_rows(layout: Layout, placed: Placed, words: list[str], asked: str) -> list[LabelHit]:
    """A label of several words printed over two rows ("SPEED" over "LIMIT 60", a sign's layout): the hit is the
    lower line, the label ending after its last word there. Only the asked words themselves, not abbreviations."""
    wanted = label_words(asked)
    if len(wanted) < 2 or not words or len(words) >= len(wanted) or wanted[:len(words)] != words:
        return []
    rest = wanted[len(words):]
    hits = []
    for lower in layout.below(placed):
        found = _match_start(lower.text, label_words(lower.text), rest)
        if found is not None and found[1] == 1.0:
            printed = f"{placed.text.strip()} {lower.text[:found[0]].strip()}"
            hits.append(LabelHit(lower, found[0], 0.95, printed, across_rows=True))
    return hits


def is_rest_of_label(value: str, asked: str) -> bool:
    """Whether ``value`` is only the last words of the ``asked`` label ("LIMIT" under "SPEED" for "speed limit"):
    the label's own continuation, never its value."""
    got, wanted = label_words(value), label_words(asked)
    return 0 < len(got) < len(wanted) and wanted[-len(got):] == got


def _match_start(text: str, words: list[str], wanted: list[str]) -> tuple[int, float] | None:
    """Whether the label words ``wanted`` appear at (or within the first two words of) ``text``: the character
    offset where the label ends and a match quality (1 = at the start)."""
    if not wanted or len(words) < len(wanted):
        return None
    for start in range(0, min(3, len(words) - len(wanted) + 1)):
        if words[start:start + len(wanted)] == wanted:
            end = _char_end(text, start + len(wanted))
            return end, 1.0 if start == 0 else 0.9
    return None


def _char_end(text: str, n_words: int) -> int:
    """Offset just after the ``n_words``-th word of ``text`` (words as ``label_words`` counts them)."""
    matches = list(_WORD.finditer(text.lower()))
    if n_words <= 0 or not matches:
        return 0
    return matches[min(n_words, len(matches)) - 1].end()


def variants_for(label: str) -> list[str]:
    """The ways a label asked for in words may be printed: "invoice number" -> "invoice number", "invoice no",
    "inv no", "bill no" ... (the asked words first)."""
    words = [w for w in re.findall(r"[a-z0-9]+", label.lower()) if w not in ("the", "a", "an", "of", "this")]
    if not words:
        return []
    options: list[list[str]] = [[]]
    for word in words:
        choices = SYNONYMS.get(word, (word,))
        options = [prefix + [choice] for prefix in options for choice in choices][:40]
    asked = " ".join(words)
    variants = [asked] + [v for v in (" ".join(option) for option in options) if v != asked]
    if len(words) > 1 and all(w in FIELD_WORDS for w in words[1:]):
        # "invoice number" is often printed as plain "invoice" or "inv #"; "speed limit" is never plain "speed".
        variants += [v for v in SYNONYMS.get(words[0], (words[0],)) if v not in variants]
    elif len(words) > 2 and words[-1] in FIELD_WORDS:
        # "site reference number" printed "Site ref:": the field word left off after the words that name it.
        variants += [v for v in (" ".join(option[:-1]) for option in options) if v not in variants]
    return variants


def value_after(layout: Layout, hit: LabelHit) -> tuple[str, list[Placed], str] | None:
    """The text printed after a label: in the same line, else right of it on its row, else on the line below
    (the value's text, the lines it came from, and where it was)."""
    rest = hit.placed.text[hit.end:].strip(" :;=#.-")
    if re.search(r"[A-Za-z0-9]", rest):
        return rest, [hit.placed], "after the label on its line"
    right = layout.right_of(hit.placed)
    if right:
        text = " ".join(p.text for p in right).strip(" :;=")
        if re.search(r"[A-Za-z0-9]", text):
            return text, right, "right of the label on its row"
    below = [p for p in layout.below(hit.placed) if p.x0 < hit.placed.x1 + 2 * hit.placed.height]
    if below:
        return below[0].text.strip(" :;="), below[:1], "under the label"
    return None


def bare_value_under(layout: Layout, hit: LabelHit) -> tuple[str, list[Placed], str] | None:
    """The line right under a label when it holds no word, only a value ("09:10" under "Boarding")."""
    below = [p for p in layout.below(hit.placed) if p.x0 < hit.placed.x1 and p.x1 > hit.placed.x0]
    if below and not re.search(r"[A-Za-z]{2,}", below[0].text):
        return below[0].text.strip(" :;="), below[:1], "under the label"
    return None


def find_label_value(layout: Layout, label: str) -> FieldAnswer:
    """The value printed beside ``label`` (any label: "invoice number", "cashier", "change", "tax" ...)."""
    variants = variants_for(label)
    if not variants:
        return FieldAnswer(label, None, 0.0, missing="no label was named")
    money = (any(v in MONEY_LABELS for v in variants[:3]) or label.lower().strip() in MONEY_LABELS
             or bool(set(label.lower().split()) & MONEY_WORDS))
    hits = find_labels(layout, variants)
    candidates: list[tuple[float, str, list[Placed], LabelHit, str]] = []
    for hit in hits:
        found = value_after(layout, hit)
        if found is None:
            continue
        text, lines, where = found
        value = _fit_value(label, text, money)
        if value is None and where.startswith("after") and (right := layout.right_of(hit.placed)):
            # "Balance due   £31.50": the label's last word ("due") on its line, the value right of it.
            text, lines, where = " ".join(p.text for p in right), right, "right of the label on its row"
            value = _fit_value(label, text, money)
        if value is None and where.startswith("right"):
            # A label beside another label ("Boarding   Departs" over "09:10   09:45"): the bare value under it.
            under = bare_value_under(layout, hit)
            if under is not None:
                text, lines, where = under
                value = _fit_value(label, text, money)
        if value is None or is_rest_of_label(value, variants[0]):
            continue
        if hit.across_rows and not re.search(r"\d", value):
            continue  # a sign's two-row label ("SPEED / LIMIT") carries a number, not the next words ("ENFORCED")
        ocr = min([hit.placed.line.confidence] + [p.line.confidence for p in lines])
        pairing = 1.0 if where.startswith("after") else 0.95 if where.startswith("right") else 0.8
        candidates.append((hit.score * pairing * ocr, value, lines, hit, where))
    if not candidates:
        why = (f"no '{label}' label is printed" if not hits else
               f"nothing that reads as a {'money amount' if money else 'value'} next to the '{hits[0].printed}' label")
        return FieldAnswer(label, None, 0.0, missing=why)
    candidates.sort(key=lambda c: -c[0])
    score, value, lines, hit, where = candidates[0]
    distinct = {c[1] for c in candidates}
    if len(distinct) > 1 and candidates[1][0] >= 0.9 * score:
        score *= 0.7  # two labels that fit about as well but print different values
    return FieldAnswer(label, value, round(score, 4), boxes=[p.line.box for p in lines], label=hit.printed,
                       label_box=hit.placed.line.box, how=f"{where} '{hit.printed}'",
                       candidates=[Candidate(c[1], c[0], c[4]) for c in candidates[:5]])


def _fit_value(label: str, text: str, money: bool) -> str | None:
    """``text`` cut to the kind of value ``label`` asks for, or None when it holds none."""
    if money:
        amounts = amounts_in(text)
        return amounts[-1].text if amounts else None
    lowered = label.lower()
    if set(lowered.split()) & QUANTITY_WORDS:
        quantities = QUANTITY.findall(text)
        return quantities[0].strip() if len(quantities) == 1 else None
    if "time" in lowered.split():
        match = TIME.search(text)
        return match.group(0) if match else None
    if "date" in lowered.split():
        dates = dates_in(text)
        return dates[0].text if dates else None
    if re.search(r"\b(?:no|number|#|id|code|ref)\b", lowered) and not re.search(r"\d", text):
        return None
    if re.match(r"\s*[,;.)\]}]", text):
        return None  # "Quarterly Revenue, FY2023": the label's words run on, no value follows them
    # "Monthly target (300)": the brackets set the value off from its label; they are not part of it. An amount
    # with pence in brackets ("(5.00)") is an accountant's negative one, and keeps them.
    wrapped = re.fullmatch(r"\s*[(\[]([^()\[\]]+)[)\]]\s*", text)
    if wrapped and not re.fullmatch(r"\D{0,3}[\d,]*\.\d\d\D{0,3}", wrapped.group(1).strip()):
        text = wrapped.group(1)
    return text.strip() or None
