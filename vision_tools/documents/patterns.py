"""What printed values look like on receipts and invoices: amounts, dates and times, registration numbers, phone
lines, and the words that mark a company name or an address line.

Everything here works on one line of OCR text and returns spans of it exactly as printed, so an answer can be
the printed text and its box. OCR habits are tolerated where they are unambiguous: the letter O for a zero inside
an amount ("RMO.08"), a stray mark after an amount ("8.40*", "5.20 S", "0.42v").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

_CURRENCY = r"(?:RM|MYR|USD|SGD|S\$|US\$|\$|€|£|EUR|GBP)"
# A money amount: two decimals (receipts print cents), optional thousands commas, an optional currency before it
# (which may touch the label: "Grand TotalRM15.40"). A negative amount may drop its leading zero ("RM -.01", how
# some tills print a rounding adjustment).
AMOUNT = re.compile(
    rf"(?:(?P<currency>{_CURRENCY})|(?<![\w.,/:-]))\s?(?P<sign>-)?\s?"
    r"(?P<number>\d{1,3}(?:,\d{3})+\.\d{2}|\d+\.\d{2}|(?<=-)\.\d{2})(?![\d/])(?!\.\d)(?!-\d)",
    re.IGNORECASE)
#: What may come before a negative amount without its leading zero ("RM -.01", "Rounding -.01"): a currency, a
#: space or the line's start, never a code's mark ("#-.05").
_BARE_CENTS_BEFORE = re.compile(r"(?:^|\s)$")
_O_FOR_ZERO = re.compile(r"(?<=RM)[Oo](?=[.,]\d\d)|(?<![\w.])[Oo](?=\.\d\d(?!\d))")


@dataclass(frozen=True)
class Amount:
    """A money amount found in a line: the printed span, its position in the line and its value."""

    text: str
    start: int
    end: int
    value: float


def amounts_in(text: str) -> list[Amount]:
    """Every money amount printed in ``text``, left to right."""
    fixed = _O_FOR_ZERO.sub("0", text)
    found = []
    for match in AMOUNT.finditer(fixed):
        if match.group("number").startswith(".") and not _BARE_CENTS_BEFORE.search(fixed[:match.start()]):
            continue
        if re.match(r"\s?%", fixed[match.end():]):
            continue  # "SALES TAX 8.25%": a rate, not money
        number = float(match.group("number").replace(",", ""))
        value = -number if match.group("sign") else number
        found.append(Amount(text[match.start():match.end()].strip(), match.start(), match.end(), value))
    return found


def sole_amount(text: str) -> Amount | None:
    """The amount when ``text`` is little more than one amount ("RM 14.10", "8.40 *", "$5.50"), else None."""
    found = amounts_in(text)
    if len(found) != 1:
        return None
    rest = (text[:found[0].start] + text[found[0].end:]).strip()
    if _UNIT_AFTER.match(text[found[0].end:]):
        return None  # "0.08 g", "2.5 kg", "425 kcal": a quantity, not money
    return found[0] if len(re.sub(r"[^A-Za-z0-9]", "", rest)) <= 2 else None


#: A unit of measure (or "%") printed right after a number: the number is a quantity or a rate, not money.
UNIT_AFTER = r"\s*(?:(?:mg|g|kg|ml|cl|l|oz|lbs?|kcal|kj|cal|cm|mm|km|m)\b|%)"
_UNIT_AFTER = re.compile(UNIT_AFTER, re.IGNORECASE)


_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_name) if name})
_MONTHS["sept"] = 9
_MONTH_WORD = "|".join(sorted(_MONTHS, key=len, reverse=True))
_SEP = r"[/\-.]"
_DATE_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\d/.-])(?P<y>(?:19|20)\d\d)(?P<s>[/\-.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?![\d/.-]*\d)"),
     "ymd"),
    # A four-digit year may touch the time printed after it ("29/12/201711:41").
    (re.compile(rf"(?<![\d/.-])(?P<a>\d{{1,2}})(?P<s>{_SEP})(?P<b>\d{{1,2}})(?P=s)(?P<y>(?:19|20)\d\d)"
                r"(?:(?!\d)|(?=[01]?\d:[0-5]\d|2[0-3]:[0-5]\d))"),
     "abY"),
    (re.compile(rf"(?<![\d/.-])(?P<a>\d{{1,2}})(?P<s>{_SEP})(?P<b>\d{{1,2}})(?P=s)(?P<y>\d\d)(?![\d/.-]*\d)"),
     "aby"),
    # An underscore may stand for the space before the time ("01-NoV-2017_11:20").
    (re.compile(rf"(?<![\w])(?P<d>\d{{1,2}})(?P<s>[\s\-/.]?)(?P<mon>{_MONTH_WORD})\.?(?P=s)(?P<y>(?:19|20)?\d\d)"
                r"(?![A-Za-z0-9])", re.IGNORECASE), "dMy"),
    (re.compile(rf"(?<![\w])(?P<mon>{_MONTH_WORD})\.?\s?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s?(?P<y>(?:19|20)\d\d)"
                r"(?!\d)", re.IGNORECASE), "Mdy"),
    # Compact forms (25032018) only count next to a time or a date label: alone they are any eight digits.
    (re.compile(r"(?<![\d])(?P<d>[0-3]\d)(?P<m>[01]\d)(?P<y>20\d\d)(?!\d)"), "compact"),
]
#: A printed weight or volume ("500 g", "1.5 L", "250ml", "12 fl oz").
QUANTITY = re.compile(r"(?<![\w.,/])\d+(?:[.,]\d+)?\s?(?:kg|g|mg|lbs?|oz|ml|cl|l|lit(?:re|er)s?|fl\.? ?oz)\b",
                      re.I)
TIME = re.compile(r"(?<!\d)(?:[01]?\d|2[0-3])[:.][0-5]\d(?:[:.][0-5]\d)?\s?(?:[AaPp][Mm])?(?!\d)")


@dataclass(frozen=True)
class DateSpan:
    """A date printed in a line: the span as printed, its position, and the calendar date it can mean."""

    text: str
    start: int
    end: int
    year: int
    readings: tuple[tuple[int, int], ...]  # the (month, day) pairs it can mean: 03/04 is 3 April or 4 March
    four_digit_year: bool
    compact: bool
    month_named: bool


def dates_in(text: str) -> list[DateSpan]:
    """Every plausible calendar date printed in ``text`` (day-month and month-day orders both accepted)."""
    found: list[DateSpan] = []
    taken: list[tuple[int, int]] = []
    for pattern, form in _DATE_FORMS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            span = _date_span(match, form)
            if span is not None:
                found.append(span)
                taken.append((match.start(), match.end()))
    return sorted(found, key=lambda span: span.start)


def _date_span(match: re.Match[str], form: str) -> DateSpan | None:
    groups = match.groupdict()
    year_text = groups["y"]
    year = int(year_text) if len(year_text) == 4 else 2000 + int(year_text)
    if form in ("abY", "aby"):
        a, b = int(groups["a"]), int(groups["b"])
        pairs = [(b, a), (a, b)]
    elif form in ("dMy", "Mdy"):
        pairs = [(_MONTHS[groups["mon"].lower()], int(groups["d"]))]
    else:
        pairs = [(int(groups["m"]), int(groups["d"]))]
    readings = tuple(sorted({(m, d) for m, d in pairs if _valid(year, m, d)}))
    if not readings or not 1990 <= year <= 2099:
        return None
    text = match.group(0)
    stripped = text.strip(" .")
    start = match.start() + text.index(stripped)
    return DateSpan(stripped, start, start + len(stripped), year, readings, len(year_text) == 4,
                    form == "compact", form in ("dMy", "Mdy"))


def _valid(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


#: Company names end with these (and the registration number that often follows is not part of the name).
COMPANY_SUFFIX = re.compile(
    r"\b(?:SDN\.?\s?BHD\.?|SENDIRIAN\s+BERHAD|S/B|BHD\.?|BERHAD|ENTERPRISES?|TRADING(?:\s+(?:CO|COMPANY))?\.?|"
    r"CO\.?\s*,?\s*LTD\.?|COMPANY|CORPORATION|CORP\.?|LIMITED|LTD\.?|LLC|L\.?L\.?P\.?|INC\.?|PLC|GMBH|"
    r"PTE\.?\s+LTD\.?|PTY\.?\s+LTD\.?|(?<=\s)CO\.?)(?=\W|$)",
    re.IGNORECASE)
#: Words that name a kind of business; a top line holding one is likely the issuer's name.
BUSINESS_WORD = re.compile(
    r"\b(?:RESTAURANT|RESTORAN|CAFE|KEDAI|BAKERY|BAKERIES|MART|MARKET|SUPERMARKET|HYPERMARKET|STORES?|SHOP|"
    r"PHARMACY|FARMASI|HARDWARE|STATIONERY|TRADING|ENTERPRISE|HOUSE|CENTRE|CENTER|BOOKS?|FOOD|KITCHEN|"
    r"SERVICES?|HOLDINGS|INDUSTRIES|MOTOR|PETROL|STATION|HOTEL|CLINIC|GROUP|SYARIKAT|PERNIAGAAN)\b",
    re.IGNORECASE)
#: A registration number line or tail: "(867388-U)", "002693074-K", "Company Reg No.: 725186-V", "CO.REG: ...".
REGISTRATION = re.compile(
    r"\(?\s*(?:CO(?:MPANY)?\.?\s*(?:REG(?:ISTRATION)?)?\.?\s*(?:NO|NUMBER)?\.?\s*[:.]?\s*)?"
    r"\b[0-9O]{4,12}\s?-?\s?[A-Z]\b\s*\)?|\b(?:CO(?:MPANY)?\.?\s*REG|REG(?:ISTRATION)?\s*NO|COMPANY\s+NO|"
    r"ROC|BRN|SSM)\b",
    re.IGNORECASE)
#: Lines that end an address block: phone and fax, tax ids, the document's title, e-mail and web addresses.
ADDRESS_STOP = re.compile(
    r"\b(?:TEL|TE1|TELEPHONE|PHONE|PH|FAX|HP|H/P|MOBILE|GST|SST|VAT|TAX|INVOICE|RECEIPT|BILL|CASH|DATE|TIME|"
    r"CASHIER|E-?MAIL|WWW|HTTPS?|OPENING|HOURS|TABLE|ORDER|DOC|SHOPPING\s+HOURS)\b|@|\.com\b|"
    r"(?<![\w-])\+?\(?0\d{1,3}\)?[\s-]?\d{3,4}[\s-]?\d{3,4}\b",
    re.IGNORECASE)
#: Words that mark an address line (Malaysian receipts write Jalan/Jln, Taman/Tmn, Lot, No., Seksyen ...).
ADDRESS_WORD = re.compile(
    r"\b(?:JALAN|JLN|JL|LORONG|LRG|PERSIARAN|LEBUH|LEBUHRAYA|TAMAN|TMN|KAMPUNG|KG|MUKIM|LOT|NO|SEKSYEN|SEK|"
    r"BANDAR|KAWASAN|PERINDUSTRIAN|BANGUNAN|WISMA|MENARA|PLAZA|KOMPLEKS|PUSAT|BLOK|BLOCK|LEVEL|FLOOR|FLR|"
    r"TINGKAT|ARAS|UNIT|SUITE|ROAD|RD|STREET|ST|AVENUE|AVE|LANE|DRIVE|BOULEVARD|HIGHWAY|MALL|SQUARE|PARK|"
    r"CITY|BATU|SRI|SG|SUNGAI)\b",
    re.IGNORECASE)
#: State and region names that may close an address on a line of their own.
REGION_WORD = re.compile(
    r"\b(?:SELANGOR|DARUL\s+EHSAN|DARUL\s+TAKZIM|JOHOR|KUALA\s+LUMPUR|KL|W\.?\s?P\.?|WILAYAH\s+PERSEKUTUAN|"
    r"PERAK|PENANG|PULAU\s+PINANG|KEDAH|KELANTAN|TERENGGANU|PAHANG|NEGERI\s+SEMBILAN|MELAKA|MALACCA|SABAH|"
    r"SARAWAK|PERLIS|PUTRAJAYA|LABUAN|MALAYSIA|SINGAPORE)\b",
    re.IGNORECASE)
POSTCODE = re.compile(r"(?<![\d-])\d{5}(?![\d-])")

#: Address words common enough on the receipts this reads that a damaged print of one can be restored.
ADDRESS_LEXICON = frozenset([
    "JALAN", "JLN", "TAMAN", "TMN", "LORONG", "PERSIARAN", "KAWASAN", "PERINDUSTRIAN", "BANDAR", "SEKSYEN",
    "KAMPUNG", "BANGUNAN", "WISMA", "MENARA", "PLAZA", "KOMPLEKS", "PUSAT", "MALL", "CITY", "UTAMA", "BARU",
    "JAYA", "INDAH", "DESA", "MUKIM", "BATU", "LEVEL", "FLOOR", "BLOCK", "LOT", "KUALA", "LUMPUR", "SELANGOR",
    "JOHOR", "BAHRU", "PETALING", "SHAH", "ALAM", "DARUL", "EHSAN", "TAKZIM", "PULAU", "PINANG", "PENANG",
    "MELAKA", "NEGERI", "SEMBILAN", "KEDAH", "PERAK", "PAHANG", "KELANTAN", "TERENGGANU", "SABAH", "SARAWAK",
    "PERLIS", "PUTRAJAYA", "LABUAN", "MALAYSIA", "CHERAS", "KLANG", "SUBANG", "PUCHONG", "KEPONG", "DAMANSARA",
    "AMPANG", "SETAPAK", "RAWANG", "KAJANG", "SEREMBAN", "IPOH",
])
_DAMAGE_MARK = re.compile(r"(?<=[A-Za-z])[:_|!\"`~^](?=[A-Za-z])|^[\"`~^_:|]+(?=[A-Za-z])")
# Only digits that pass for letters (l/I, O): "Uptown3" is a name, "Ma11" a misread "Mall".
_GLUED_DIGITS = re.compile(r"[a-z][01]|[01][a-z]")
_STRAY_MARKS = frozenset(['"', "`", "~", "^", "_", ":", "|"])
#: What a speck or a bullet before a word is read as.
_SPECKS = frozenset("OIL01|")
_LOOKALIKES = str.maketrans({"1": "L", "0": "O", "5": "S", "8": "B", "|": "I"})
_TOKEN = re.compile(r"[^\s,;()]+")


def damaged_tokens(text: str) -> list[str]:
    """Words that look damaged by faded print or a stamp: a colon or underscore between letters ("JA:AN"), a
    quote stuck to a word ('"EBRAU'), digits glued to a lowercase word ("Ma11"), digits read as capitals
    ("AOOOI" where a postcode was printed)."""
    out = []
    for match in _TOKEN.finditer(text):
        core = match.group(0).strip(".")
        glued = _GLUED_DIGITS.search(core) and sum(c.isalpha() for c in core) >= 2
        misread_digits = _digits_read_as_capitals(core)
        if _DAMAGE_MARK.search(core) or glued or misread_digits:
            out.append(core)
    return out


def _digits_read_as_capitals(word: str) -> bool:
    """"AOOOI" where "40150" was printed: a word of capitals that is at least 70 % O and I (OLIVIA is 50 %)."""
    if not (len(word) >= 4 and word.isalpha() and word.isupper()) or word in ADDRESS_LEXICON:
        return False
    return sum(ch in "OI" for ch in word) >= 0.7 * len(word)


def repair_address(text: str) -> tuple[str, int]:
    """``text`` with damaged address words restored where exactly one lexicon word fits ("JA:AN" -> "JALAN",
    "SE_ANGOR" -> "SELANGOR", "Ma11" -> "Mall"), a letter O among digits made a zero ("G3O" -> "G30"), and how
    many words were restored. A word whose first letter a mark replaced is restored from the same word printed
    elsewhere in ``text`` ('TAMAN DESA "EBRAU' after 'DESA TEBRAU')."""
    fixed = 0
    printed = {w.upper() for w in re.findall(r"[A-Za-z]{4,}", text)}

    def repair(match: re.Match[str]) -> str:
        nonlocal fixed
        token = match.group(0)
        lead = token[0] if token[0] in _STRAY_MARKS else ""
        core = token[len(lead):]
        tail = core[len(core.rstrip(".")):]
        core = core[:len(core) - len(tail)]
        repaired = _repair_word(core)
        if repaired is None and lead and core.isalpha():
            whole = [w for w in printed if w[1:] == core.upper()]
            repaired = (whole[0] if core.isupper() else whole[0].capitalize()) if len(whole) == 1 else None
        if repaired is None and re.fullmatch(r"[A-Z]*\d+[O0-9]*O[O0-9]*|[A-Z]?\d*O\d+", core):
            repaired = re.sub(r"(?<=\d)O|O(?=\d)", "0", core)
        if repaired is None or repaired == core:
            return token
        fixed += 1
        return f"{repaired}{tail}"

    return _TOKEN.sub(repair, text), fixed


def _repair_word(core: str) -> str | None:
    upper = core.upper()
    if upper in ADDRESS_LEXICON or len(core) < 3:
        return None
    options = set()
    for i, ch in enumerate(upper):
        if ch in _STRAY_MARKS:  # one damaged character: try every letter in its place
            options |= {w for w in ADDRESS_LEXICON if len(w) == len(upper) and
                        all(a == b for j, (a, b) in enumerate(zip(upper, w, strict=True)) if j != i)}
    if upper[0] in _SPECKS and upper[1:] in ADDRESS_LEXICON and len(upper) >= 4:
        options.add(upper[1:])  # a speck read as a letter before a street word: "OJLN" -> "JLN"
    looked = upper.translate(_LOOKALIKES)
    if looked != upper and looked in ADDRESS_LEXICON and any(ch.islower() for ch in core):
        options.add(looked)
    if len(options) != 1:
        return None
    word = options.pop()
    return word if not any(ch.islower() for ch in core) else word.capitalize()
