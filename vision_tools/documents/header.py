"""The issuer printed at the top of a receipt: its name, and the address lines under it.

The name is the top row that reads as a name (mostly letters; not a registration number, a date, a code or the
document's title), preferring a row that ends in a company suffix (SDN BHD, S/B, ENTERPRISE, TRADING, LTD) or
names a kind of business (RESTAURANT, BAKERY, PHARMACY); a name printed over two or three rows of the same type
size is joined. The registration number that often follows a name is not part of it.

The address is the block under the name: it starts at the first row that reads as an address (a house number, a
street word with a number, a postcode), skipping a registration line or a branch line before it, and ends at the
phone, fax, tax-id or title line, at a wide gap, or after the postcode row (a lone state name may follow).
"""

from __future__ import annotations

import re

import numpy as np

from vision_tools.documents import config
from vision_tools.documents.layout import Layout, Placed
from vision_tools.documents.name_words import repair_name
from vision_tools.documents.patterns import (
    ADDRESS_STOP,
    ADDRESS_WORD,
    BUSINESS_WORD,
    COMPANY_SUFFIX,
    POSTCODE,
    REGION_WORD,
    REGISTRATION,
    TIME,
    amounts_in,
    damaged_tokens,
    dates_in,
    repair_address,
)
from vision_tools.documents.result import Candidate, FieldAnswer

_TITLE = re.compile(r"^\W*(?:(?:simplified\s+|full\s+)?tax\s+invoice|invoice|receipt|official\s+receipt|"
                    r"cash\s+(?:bill|sales?|receipt)|bill|quotation|delivery\s+order)\W*$", re.IGNORECASE)
_REG_WORDS = re.compile(r"\b(?:co(?:mpany)?\.?\s*reg\w*|reg(?:istration)?\.?\s*no|company\s+no|roc|brn|ssm)\b",
                        re.IGNORECASE)
_HOUSE_NUMBER = re.compile(r"^\W*(?:(?:no|lot|unit|blk|block|level|lvl)\b\.?\s*:?\s*)?[A-Z]?-?\d+[A-Z]?"
                           r"(?:[-/&]\s?[A-Z]?\d+[A-Z]?)*\s*[,.\s]", re.IGNORECASE)


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def is_name_like(text: str) -> bool:
    """A row that could be (part of) a business name."""
    core = REGISTRATION.sub(" ", text)
    alnum = sum(ch.isalnum() for ch in core)
    letters = _letters(core)
    if letters < 3 or letters < 0.6 * max(alnum, 1):
        return False
    if _TITLE.match(text) or dates_in(text) or TIME.search(text) or amounts_in(text):
        return False
    if POSTCODE.search(text):
        return False
    # "CASH & CARRY SDN BHD" is a name: a suffix outweighs a word that would end an address.
    return not ADDRESS_STOP.search(text) or bool(COMPANY_SUFFIX.search(core))


def is_registration(text: str) -> bool:
    """A company registration line: "(867388-U)", "Company Reg. No.: 725186-V", "CO REGNO: 21003B-K"."""
    if _REG_WORDS.search(text):
        return True
    return bool(REGISTRATION.search(text)) and _letters(REGISTRATION.sub(" ", text)) <= 2


def is_address_start(text: str) -> bool:
    """A row that begins an address: a house number, a street word beside a number, a postcode."""
    if is_registration(text) or dates_in(text) or TIME.search(text) or amounts_in(text):
        return False
    if ADDRESS_STOP.search(text) and not POSTCODE.search(text):
        return False
    has_digit = bool(re.search(r"\d", text))
    return bool(_HOUSE_NUMBER.match(text) or POSTCODE.search(text) or (ADDRESS_WORD.search(text) and has_digit))


def _row_lines(layout: Layout, row: int) -> list[Placed]:
    """The lines of a header row, without specks far off to the side (a stray "2" in the margin)."""
    lines = layout.rows[row]
    if len(lines) < 2:
        return lines
    kept = []
    for placed in lines:
        others = [p for p in lines if p is not placed]
        gap = min(max(p.x0 - placed.x1, placed.x0 - p.x1) for p in others)
        if sum(ch.isalnum() for ch in placed.text) <= 2 and gap > 0.5 * placed.height:
            continue
        kept.append(placed)
    return kept or lines


def _row_text(layout: Layout, row: int) -> str:
    return " ".join(p.text for p in _row_lines(layout, row)).strip()


def _row_height(layout: Layout, row: int) -> float:
    return float(np.median([p.height for p in layout.rows[row]]))


def name_rows(layout: Layout) -> tuple[list[int], float, str] | None:
    """The rows holding the issuer's name, a 0-1 strength of the evidence, and why."""
    top = range(min(config.CONFIG.header_rows, len(layout.rows)))
    scored: list[tuple[float, int, str]] = []
    seen_name = 0
    for row in top:
        text = _row_text(layout, row)
        if is_address_start(text) and seen_name:
            break  # the address has begun: names are above it
        if not is_name_like(text):
            continue
        score, why = 0.55 - 0.04 * seen_name, "the first name-like row at the top"
        if COMPANY_SUFFIX.search(text):
            score, why = 0.95 - 0.02 * seen_name, "ends in a company suffix"
        elif BUSINESS_WORD.search(text):
            score, why = 0.8 - 0.03 * seen_name, "names a kind of business"
        if len(text.split()) == 1 and score < 0.9:
            score -= 0.15  # a single word at the top is more often a logo or a code than the whole name
        scored.append((score, row, why))
        seen_name += 1
    if not scored:
        return None
    scored.sort(key=lambda item: (-item[0], item[1]))
    score, row, why = scored[0]
    rows = _grow_name(layout, row)
    return rows, score, why


def _grow_name(layout: Layout, row: int) -> list[int]:
    """``row`` with the rows of the same name above and below it (same type size, no gap, name-like)."""
    height = _row_height(layout, row)
    rows = [row]

    def joins(other: int, near: int) -> bool:
        if not 0 <= other < len(layout.rows):
            return False
        text = _row_text(layout, other)
        if not is_name_like(text) or is_address_start(text):
            return False
        other_height = _row_height(layout, other)
        gap = abs(min(p.y0 for p in layout.rows[max(other, near)]) - max(p.y1 for p in layout.rows[min(other, near)]))
        return 0.75 <= other_height / height <= 1.33 and gap <= 0.8 * height

    # Downwards only while the name is visibly unfinished (no suffix yet, or a bracket left open).
    while True:
        last_text = " ".join(_row_text(layout, r) for r in rows)
        unfinished = last_text.count("(") > last_text.count(")") or not COMPANY_SUFFIX.search(last_text)
        nxt = rows[-1] + 1
        if not unfinished or not joins(nxt, rows[-1]) or len(rows) >= 4:
            break
        following = _row_text(layout, nxt)
        if not (COMPANY_SUFFIX.search(following) or BUSINESS_WORD.search(following) or
                last_text.count("(") > last_text.count(")") or not COMPANY_SUFFIX.search(last_text)):
            break
        rows.append(nxt)
    while joins(rows[0] - 1, rows[0]) and len(rows) < 4 and not COMPANY_SUFFIX.search(_row_text(layout, rows[0] - 1)):
        rows.insert(0, rows[0] - 1)
    return rows


def company_text(text: str) -> str:
    """A name row as printed, without the registration number after it ("... SDN BHD (519537-X)")."""
    suffixes = list(COMPANY_SUFFIX.finditer(text))
    if suffixes:
        end = suffixes[-1].end()
        if text[end:].count(")") > text[end:].count("(") and text[:end].count("(") > text[:end].count(")"):
            end = end + text[end:].index(")") + 1  # "... ENTERPRISE (SETIA ALAM) SDN BHD" keeps its bracket
        return text[:end].strip(" ,")
    return REGISTRATION.sub("", text).strip(" ,-")


def find_company(layout: Layout) -> FieldAnswer:
    """The issuer's name as printed at the top of the document."""
    found = name_rows(layout)
    if found is None:
        return FieldAnswer("company", None, 0.0, missing="no name-like line at the top of the document")
    rows, strength, why = found
    lines = [p for r in rows for p in _row_lines(layout, r)]
    text, restored = repair_name(company_text(" ".join(_row_text(layout, r) for r in rows)))
    if _letters(text) < 3:
        return FieldAnswer("company", None, 0.0, missing="no name-like line at the top of the document")
    ocr = float(np.mean([p.line.confidence for p in lines]))
    confidence = min(ocr, min(p.line.confidence for p in lines) + 0.1) * strength
    how = f"row {rows[0] + 1} from the top ({why})" + (f", joined over {len(rows)} rows" if len(rows) > 1 else "")
    if restored:
        confidence *= config.CONFIG.restored_factor ** len(restored)
        how += f"; misread word(s) restored: {', '.join(repr(w) for w in restored)}"
    damaged = damaged_tokens(text) + (["a leading connector"] if re.match(r"^\W", text) else [])
    if damaged:
        confidence *= config.CONFIG.damage_factor ** len(damaged)
        how += f"; print looks damaged at {', '.join(repr(t) for t in damaged)}"
    return FieldAnswer("company", text, round(confidence, 4), boxes=[p.line.box for p in lines], how=how,
                       candidates=[Candidate(text, strength, why)])


def _address_rows(layout: Layout, start_row: int) -> tuple[list[tuple[int, str]], bool, bool]:
    """The rows of the address block from ``start_row`` on, each with its text cut at a phone or tax-id part;
    whether a postcode row was among them; and whether the block began only weakly (a row with a comma)."""
    taken: list[tuple[int, str]] = []
    skipped = 0
    postcode_seen = weak_start = False
    last: Placed | None = None
    for row in range(start_row, min(start_row + 10, len(layout.rows))):
        text = _row_text(layout, row)
        top = min(p.y0 for p in layout.rows[row])
        if last is not None and top - last.y1 > 1.6 * max(last.height, layout.line_height):
            break  # a wide gap ends the block
        if not taken:
            # "USJ Summit, Subang (SS)" after the registration lines: a comma row may begin it, weakly.
            weak = skipped > 0 and "," in text and is_name_like(text) and not ADDRESS_STOP.search(text)
            if not is_address_start(text) and not weak:
                if skipped >= config.CONFIG.max_skipped_rows or amounts_in(text):
                    break
                skipped += 1  # a registration number, a branch name or the date under the name
                continue
            weak_start = not is_address_start(text)
        elif (postcode_seen and not _region_only(text)) or amounts_in(text) or dates_in(text) or \
                _stops_before_postcode(text):
            break
        stop = ADDRESS_STOP.search(text)
        if stop and stop.start() > 0:
            text = text[:stop.start()].rstrip(" ,;:-")  # "81750 Johor Bahru, Johor. Tel No.: 07-387 3322"
        taken.append((row, text))
        last = max(layout.rows[row], key=lambda p: p.y1)
        postcode_seen = postcode_seen or bool(POSTCODE.search(text))
        if stop:
            break
    return taken, postcode_seen, weak_start


def _stops_before_postcode(text: str) -> bool:
    """A row that is a phone, tax-id or title line, not an address row with a phone number after it."""
    stop, postcode = ADDRESS_STOP.search(text), POSTCODE.search(text)
    return stop is not None and not (postcode is not None and postcode.start() < stop.start())


def find_address(layout: Layout) -> FieldAnswer:
    """The issuer's address: the rows under its name, joined as printed."""
    found = name_rows(layout)
    taken, postcode_seen, weak_start = _address_rows(layout, found[0][-1] + 1 if found is not None else 0)
    if not taken:
        return FieldAnswer("address", None, 0.0, missing="no address lines under the issuer's name")
    lines = [p for r, _ in taken for p in _row_lines(layout, r)]
    value, repaired = repair_address(" ".join(text for _, text in taken))
    ocr = float(np.mean([p.line.confidence for p in lines]))
    strength = 0.95 if postcode_seen else 0.75
    if weak_start:
        strength -= 0.15
    how = f"{len(taken)} row(s) under the name" + (", ending at the postcode" if postcode_seen else "")
    if repaired:
        strength *= 0.95 ** repaired
        how += f"; {repaired} faded word(s) restored"
    damaged = damaged_tokens(value)
    if damaged:
        strength *= config.CONFIG.damage_factor ** len(damaged)
        how += f"; print looks damaged at {', '.join(repr(t) for t in damaged)}"
    return FieldAnswer("address", value, round(ocr * strength, 4), boxes=[p.line.box for p in lines], how=how,
                       candidates=[Candidate(value, strength, how)])


def _region_only(text: str) -> bool:
    """A row that is only a state or region name ("SELANGOR DARUL EHSAN", "Johor.")."""
    rest = REGION_WORD.sub(" ", text)
    return bool(REGION_WORD.search(text)) and _letters(rest) <= 2
