"""The total of a receipt: the amount next to its total label, chosen consistently with the other amounts printed.

Receipts print several totals. Every line whose label reads as a total (TOTAL, GRAND TOTAL, NETT TOTAL, Total
Incl. GST, Total Sales (Inclusive of GST), ROUNDED TOTAL, Amount Due, Total Payable ...) gives a candidate with the
amount on its line or right of it on its row; labels that only look like totals (Total Qty, Total GST, Total
(Excluding GST), the GST summary's "Total") do not. Candidates are then checked against the rest of the receipt:
the amount paid minus the change, subtotal plus tax plus rounding, and other total lines that print the same
amount; two part totals printed above that add up to it; payments made in parts that add up to it; the item amounts
printed above the totals that add up to it, or a printed tax that is its share at a usual rate (both only when no
rounding adjustment is printed, no other total line prints it plus the tax, and no larger amount is printed below it
on a line that is not a payment: a service charge or a tip may have been added). A total that none of these confirms is marked ``unchecked``: one reading of one line is all there is (the same amount printed
elsewhere is no check: an item line or the tax summary may print it). When a rounding adjustment is printed, the
line that prints a total plus the adjustment is the bill and the unrounded total before it gives way; the amount
paid may equal the total after rounding. With no total label at all, an amount that equals paid minus change (or
the amount paid when no change is printed) is the fallback, with a lower confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision_tools.documents import config
from vision_tools.documents.labels import label_words
from vision_tools.documents.layout import Layout, Placed
from vision_tools.documents.patterns import Amount, amounts_in
from vision_tools.documents.result import Candidate, FieldAnswer

_STRONG_PHRASES = (("grand", "total"), ("nett", "total"), ("net", "total"), ("total", "payable"),
                   ("amount", "payable"), ("total", "due"), ("amount", "due"), ("balance", "due"), ("total", "amount"),
                   ("total", "after"), ("rounded", "total"), ("total", "rounded"), ("total", "incl"),
                   ("total", "inclusive"), ("total", "including"), ("net", "amount"), ("nett", "amount"),
                   ("amount", "to", "pay"), ("total", "to", "pay"), ("jumlah",), ("grand",))
_NOT_TOTAL = frozenset(["qty", "quantity", "items", "item", "count", "discount", "disc", "savings", "points",
                        "supplies", "includes", "units", "pcs", "weight"])
_BEFORE_TAX = frozenset(["excl", "exclusive", "excluding", "before"])
_TAX = frozenset(["gst", "tax", "sst", "vat"])
_INCLUSIVE = frozenset(["incl", "inclusive", "including", "inc"])
_PAID = frozenset(["cash", "tendered", "paid", "payment", "card", "credit", "debit", "visa", "master", "mastercard",
                   "amex", "ewallet", "boost", "grabpay"])
_COLUMN_WORDS = frozenset(["qty", "quantity", "item", "items", "description", "desc", "price", "unit", "amount", "amt",
                           "disc", "code", "no", "rm", "u", "p"])
#: Words that make "… to be paid" what is still owed after a deposit, not the bill.
_OWED_BEFORE = frozenset(["balance", "deposit", "remaining", "outstanding"])
_SUMMARY_HEADINGS = (("gst", "summary"), ("tax", "summary"), ("summary",))
#: Score kept by a total line that a later line prints again after the rounding adjustment (the rounded amount is
#: what the bill comes to: "Total Incl. GST 41.52 / Rounding -0.02 / TOTAL 41.50").
ROUNDED_AWAY = 0.6
#: Tax rates whose share of a total a printed tax amount may be (GST/SST/VAT rates in use where receipts print one).
TAX_RATES = (0.05, 0.06, 0.08, 0.10)  # not 7 %: its share is 6.5 % added (a US sales tax) to the cent under 12.00
#: How far a printed tax may be from a rate's share or tax: the printed tax is that amount rounded to the cent.
TAX_TOLERANCE = 0.0051
#: Label weight of a line that mentions a total in words the label rules set aside, taken only when the amount
#: paid minus the change equals its amount.
FALLBACK_WEIGHT = 0.5


@dataclass(frozen=True)
class LabelledAmount:
    """An amount and the label it was printed with."""

    kind: str  # total | subtotal | tax | rounding | paid | change
    weight: float  # how strongly the label says "this is the total" (totals only)
    amount: Amount
    label: Placed
    value_line: Placed
    pairing: float  # 1.0 same line, 0.97 right on its row
    in_summary: bool

    @property
    def ocr(self) -> float:
        return min(self.label.line.confidence, self.value_line.line.confidence)


def classify_label(text: str) -> tuple[str, float] | None:
    """What a label says about its amount: ``(kind, weight)``, or None for labels that are no part of the sums."""
    words = label_words(text)
    if not words:
        return None
    joined = set(words)
    has_total = "total" in joined or "subtotal" in joined or "jumlah" in joined
    if "subtotal" in joined or ("sub" in joined and "total" in joined):
        return ("subtotal", 0.5) if not joined & (_NOT_TOTAL - {"qty", "quantity", "items"}) else None
    if (_has_phrase(words, ("to", "be", "paid")) and joined & {"amount", "total", "amt"}
            and not joined & (_TAX | _OWED_BEFORE)):
        return "total", 1.0  # Amount To Be Paid: what is owed, not what was handed over
    if has_total or "grand" in joined or ("amount" in joined and ("due" in joined or "payable" in joined)):
        if joined & _BEFORE_TAX and not joined & _INCLUSIVE:
            return "subtotal", 0.3  # Total Sales (Excluding GST): what the tax is added to
        if joined & _NOT_TOTAL:
            return None
        if joined & _TAX and not joined & _INCLUSIVE:
            return "tax", 0.0  # Total GST, Total Tax: the tax, not the total
        if joined & _PAID or "change" in joined:
            return ("paid", 0.0) if "change" not in joined else ("change", 0.0)
        if any(_has_phrase(words, phrase) for phrase in _STRONG_PHRASES):
            return "total", 1.0
        return "total", 0.85
    if "rounding" in joined or "rounded" in joined or ("round" in joined and "adj" in joined):
        return "rounding", 0.0
    if "change" in joined or "balance" in joined:
        return "change", 0.0
    if joined & _PAID:
        return "paid", 0.0
    if joined & _TAX and len(words) <= 5:
        return "tax", 0.0
    return None


def _has_phrase(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i:i + n]) == phrase for i in range(len(words) - n + 1))


def labelled_amounts(layout: Layout) -> list[LabelledAmount]:
    """Every amount printed with a label that takes part in the receipt's sums, in reading order."""
    found: list[LabelledAmount] = []
    summary_from = _summary_start(layout)
    for placed in layout.lines:
        own = amounts_in(placed.text)
        label_text = placed.text[:own[0].start] if own else placed.text
        kind = classify_label(label_text)
        if kind is None:
            continue
        if own:
            amount, value_line, pairing = own[-1], placed, 1.0
        else:
            right = [(p, amounts_in(p.text)) for p in layout.right_of(placed)]
            right = [(p, a) for p, a in right if a]
            if right:
                value_line, amounts = right[-1]
                amount, pairing = amounts[-1], 0.97
            elif kind[0] == "total" and not _is_column_header(layout, placed):
                # "TOTAL AMOUNT" printed as a heading over the line that carries the amount.
                below = [(p, amounts_in(p.text)) for p in layout.below(placed) if p.x0 >= placed.x1 - placed.height]
                below = [(p, a) for p, a in below if a]
                if not below:
                    continue
                value_line, amounts = below[-1]
                amount, pairing = amounts[-1], 0.75
            else:
                continue
        found.append(LabelledAmount(kind[0], kind[1], amount, placed, value_line, pairing,
                                    summary_from is not None and placed.row >= summary_from))
    return found


def _is_column_header(layout: Layout, placed: Placed) -> bool:
    """Whether ``placed`` heads a column of the item table ("QTY  ITEM  PRICE  TOTAL")."""
    others = [p for p in layout.rows[placed.row] if p.index != placed.index]
    return any(set(label_words(p.text)) & _COLUMN_WORDS for p in others)


def _summary_start(layout: Layout) -> int | None:
    """The first row of a GST/tax summary table, whose "Total" rows are sums of tax bases, not the bill."""
    for row in range(len(layout.rows)):
        words = label_words(layout.row_text(row))
        if len(words) <= 4 and any(_has_phrase(words, heading) for heading in _SUMMARY_HEADINGS):
            return row
    return None


def find_total(layout: Layout) -> FieldAnswer:
    """The receipt's total as printed, with the box it was read from."""
    found = labelled_amounts(layout)
    totals = [f for f in found if f.kind in ("total", "subtotal") or (f.kind == "rounding" and f.amount.value > 1)]
    paid = [f for f in found if f.kind == "paid" and not f.in_summary]
    change = [f for f in found if f.kind == "change" and not f.in_summary]
    taxes = [f.amount.value for f in found if f.kind == "tax" and not f.in_summary]
    rounding = [f.amount.value for f in found if f.kind == "rounding" and abs(f.amount.value) < 1]
    subtotals = [f.amount.value for f in found if f.kind == "subtotal"]
    due = _paid_minus_change(paid, change)
    if due is not None:
        # The amount paid stands in for the total when no change is due (and when the total line is unreadable).
        totals += [f for f in paid if abs(f.amount.value - due[0]) < config.CONFIG.cent]
        if not totals and due[1] == "paid minus change":
            totals = _total_lines_printing(layout, due[0])
    # The total lines a rounding adjustment applies to: a later line printing total + rounding is the bill.
    unrounded = [f for f in totals if f.kind in ("total", "subtotal", "rounding") and f.amount.value > 0]
    part_totals = _part_totals(layout)
    # Paid in parts (cash and a card) with no change: the payments together are the bill.
    split_payment = round(sum(f.amount.value for f in paid), 2) if len(paid) >= 2 and not change else None
    item_sums = _item_sums(layout, totals)
    scored: list[tuple[float, LabelledAmount, str]] = []
    for cand in totals:
        value = cand.amount.value
        if value <= 0:
            continue
        weight = cand.weight if cand.kind != "rounding" else 0.6
        if cand.kind == "paid":
            weight = 0.55 if due is not None and due[1] == "paid minus change" else 0.45
        reasons: list[str] = []
        score = weight * cand.pairing * (0.4 if cand.in_summary else 1.0)
        if due is not None and abs(due[0] - value) < config.CONFIG.cent and cand.kind != "paid":
            score += 0.3 if due[1] == "paid minus change" else 0.1
            reasons.append(f"{due[1]} agrees")
        if due is not None and cand.kind != "paid" and _rounds_to(value, due[0], rounding):
            score += 0.1
            reasons.append(f"{due[1]} agrees after rounding")
        if _sums_to(value, subtotals, taxes, rounding):
            score += 0.15
            reasons.append("subtotal + tax + rounding agrees")
        if cand.kind != "paid":
            if any(f.label.index < cand.label.index and _rounds_to(f.amount.value, value, rounding)
                   for f in unrounded):
                score += 0.2
                reasons.append("an earlier total + rounding agrees")
            elif any(f.label.index > cand.label.index and _rounds_to(value, f.amount.value, rounding)
                     for f in unrounded):
                score *= ROUNDED_AWAY  # a later total line is this amount after rounding: that line is the bill
        agreeing = {f.label.index for f in totals
                    if f is not cand and abs(f.amount.value - value) < config.CONFIG.cent}
        if agreeing:
            score += min(0.2, 0.1 * len(agreeing))
            reasons.append(f"{len(agreeing)} other total line(s) agree")
        if not reasons and _sum_of_parts(value, part_totals, cand):
            score += 0.1
            reasons.append("two part totals printed above add up to it")
        if not reasons and split_payment is not None and not _differs(split_payment, value) and cand.kind != "paid":
            score += 0.1
            reasons.append("the payments add up to it")
        if (not reasons and cand.kind == "total" and not any(rounding) and not _tax_added_to(value, taxes, totals)
                and not _larger_after(layout, cand, found)):
            tax = tax_reading(value, taxes)
            if tax == "included":
                score += 0.1
                reasons.append("the printed tax is its share at a usual rate")
            untaxed = not any(0 < t < value for t in taxes)
            if (tax == "included" or untaxed) and any(not _differs(total, value) for total in item_sums):
                score += 0.1
                reasons.append("the item amounts printed above add up to it")
        scored.append((score, cand, "; ".join(reasons)))
    if not scored:
        missing = ("no amount next to a 'total' label" if any(_mentions_total(p) for p in layout.lines)
                   else "no 'total' label and no amount paid is printed")
        return FieldAnswer("total", None, 0.0, missing=missing)
    scored.sort(key=lambda item: (-item[0], -item[1].label.index))
    best_score, best, notes = scored[0]
    rivals = [s for s, c, _ in scored[1:] if _differs(c.amount.value, best.amount.value)]
    margin = 1.0 if not rivals else min(1.0, max(0.3, (best_score - rivals[0]) / max(best_score, 1e-6) * 2.5))
    confidence = best.ocr * min(1.0, best_score) * (0.6 + 0.4 * margin)
    where = "on the line of" if best.pairing == 1.0 else "right of" if best.pairing > 0.9 else "under"
    how = f"{where} '{best.label.text if best.pairing < 1 else best.label.text[:best.amount.start].strip()}'"
    if notes:
        how += f"; {notes}"
    if not notes:
        how += "; nothing else on the receipt confirms it (no payment, sum or other total line agrees)"
    candidates = [Candidate(c.amount.text, s, c.label.text) for s, c, _ in scored[:5]]
    return FieldAnswer("total", best.amount.text, round(confidence, 4), boxes=[best.value_line.line.box],
                       label=best.label.text if best.pairing < 1 else best.label.text[:best.amount.start].strip(),
                       label_box=best.label.line.box if best.pairing < 1 else None, how=how, candidates=candidates,
                       unchecked=not notes)


def _total_mentions(layout: Layout) -> list[tuple[Placed, Placed, Amount, float]]:
    """Every line that mentions a total with the amount it prints (on the line, or right of it on its row),
    whatever its label says: (label line, value line, amount, pairing)."""
    found = []
    for placed in (p for p in layout.lines if _mentions_total(p)):
        own = amounts_in(placed.text)
        right = [(p, a) for p in layout.right_of(placed) if (a := amounts_in(p.text))]
        if own:
            found.append((placed, placed, own[-1], 1.0))
        elif right:
            found.append((placed, right[-1][0], right[-1][1][-1], 0.97))
    return found


def _part_totals(layout: Layout) -> list[tuple[int, float]]:
    """(line index, amount) of the lines that mention a total ("Total 0% supplies: 26.61")."""
    return [(label.index, amount.value) for label, _, amount, _ in _total_mentions(layout)]


def _sum_of_parts(value: float, parts: list[tuple[int, float]], cand: LabelledAmount) -> bool:
    """Whether two different amounts of total lines printed above ``cand`` add up to its amount."""
    above = [v for index, v in parts if index < cand.label.index and v and _differs(v, value)]
    return any(not _differs(a + b, value) for i, a in enumerate(above) for b in above[i + 1:] if _differs(a, b))


def _item_sums(layout: Layout, totals: list[LabelledAmount]) -> set[float]:
    """The sums of two or more item amounts (the last amount on each row) above the first total line, or the one
    item's amount when there is one, counted upwards from it (the items end where the totals begin; where they start is not known, so every run ending
    there counts)."""
    if not totals:
        return set()
    first = min(f.label.row for f in totals)
    last_amounts = [found[-1].value for row in layout.rows[:first]
                    if (found := [a for p in row for a in amounts_in(p.text)])]
    sums, running = set(), 0.0
    for count, value in enumerate(reversed(last_amounts), start=1):
        running = round(running + value, 2)
        # One amount among several printing the total's amount is that amount printed again, not a sum; the one
        # item of a receipt that has one is the sum of its items.
        if count >= 2 or len(last_amounts) == 1:
            sums.add(running)
    return sums


def _larger_after(layout: Layout, cand: LabelledAmount, found: list[LabelledAmount]) -> bool:
    """Whether a larger amount is printed below ``cand`` on a line that is no payment, change or tax summary line
    ("Service Charge 2.00 / Amount 22.00", "Tip 3.00 / Total 23.00"): something was added to it after all."""
    summary_from = _summary_start(layout)
    payments = {i for f in found if f.kind in ("paid", "change") for i in (f.label.index, f.value_line.index)}
    for placed in layout.lines:
        if (placed.row <= cand.value_line.row or placed.index in payments
                or (summary_from is not None and placed.row >= summary_from)):
            continue
        if any(a.value > cand.amount.value + config.CONFIG.cent for a in amounts_in(placed.text)):
            return True
    return False


def _tax_added_to(value: float, taxes: list[float], totals: list[LabelledAmount]) -> bool:
    """Whether another total line prints ``value`` plus a printed tax: then ``value`` is the amount before tax."""
    return any(not _differs(value + tax, f.amount.value) for tax in taxes if tax > 0 for f in totals)


def tax_reading(value: float, taxes: list[float]) -> str | None:
    """How the printed tax stands to ``value``: ``"included"`` when it is ``value``'s share at a usual rate (tax =
    value x rate / (1 + rate)) and not the tax on it, ``"added"`` when it is the tax on ``value`` (then ``value`` is
    the amount before tax) and not its share, None when no tax is printed or the two cannot be told apart."""
    shares = taxes_on = False
    for tax in (t for t in taxes if 0 < t < value):
        for rate in TAX_RATES:
            shares |= abs(tax - value * rate / (1 + rate)) <= TAX_TOLERANCE
            taxes_on |= abs(tax - value * rate) <= TAX_TOLERANCE
    if shares != taxes_on:
        return "included" if shares else "added"
    return None


def _total_lines_printing(layout: Layout, value: float) -> list[LabelledAmount]:
    """Lines that mention a total and end with ``value`` although their label was set aside ("Total Includes GST
    6%  9.00"): candidates only when the amount paid minus the change is that value and no total line was found."""
    return [LabelledAmount("total", FALLBACK_WEIGHT, amount, label, value_line, pairing, False)
            for label, value_line, amount, pairing in _total_mentions(layout) if not _differs(amount.value, value)]


def _paid_minus_change(paid: list[LabelledAmount], change: list[LabelledAmount]) -> tuple[float, str] | None:
    """What the customer was charged according to the payment lines: paid minus change, or paid alone."""
    if not paid:
        return None
    tendered = paid[-1].amount.value
    if change:
        back = change[-1].amount.value
        if 0 <= back < tendered:
            return round(tendered - back, 2), "paid minus change"
        return None
    return tendered, "amount paid"


def _sums_to(value: float, subtotals: list[float], taxes: list[float], rounding: list[float]) -> bool:
    for sub in subtotals:
        for tax in [0.0, *taxes]:
            for adj in [0.0, *rounding]:
                if abs(sub + tax + adj - value) < config.CONFIG.cent and (tax or adj):
                    return True
    return False


def _rounds_to(value: float, rounded: float, rounding: list[float]) -> bool:
    """Whether ``rounded`` is ``value`` plus one of the printed (non-zero) rounding adjustments."""
    return any(adj and abs(value + adj - rounded) < config.CONFIG.cent for adj in rounding)


def _differs(a: float, b: float) -> bool:
    return abs(a - b) > config.CONFIG.cent


def _mentions_total(placed: Placed) -> bool:
    return "total" in label_words(placed.text)
