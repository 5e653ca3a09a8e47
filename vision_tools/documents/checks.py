"""Evidence about a read issuer name or address beyond the line scores: the signs of a misreading.

A line's OCR score is the mean over its characters, so one wrong letter in a street word or a company suffix
("SDN BHO", "JALAM") leaves it at 0.95. These checks look at the value itself and return named features (0-1,
1 = no sign of trouble) that lower the field's confidence:

- ``near_miss``: a word one letter away from a word such values are made of (a company suffix, a street or
  place word) without being one: most likely that word misread;
- ``accents``: letters with accents in a value read from a page printed without them (an accent the receipt
  does not have);
- ``address_shape``: an address holds a number and a street, area or postcode word; a code or a name does not;
- ``foreign_code`` / ``leads_with_name`` / ``ends_open``: an address holding a registration number or labelled
  code from another line, beginning with a shop or branch name, or stopping on a comma (its last line left out);
- ``lookalike_digits`` / ``leads_with_code`` / ``reads_as_address`` (a name): "D.1.Y", "#000002 BAIFU", an
  address line answered as the name; ``truncated_words`` (an address): "ANGOR" for SELANGOR;
- ``min_char``: the recogniser's score of the value's least legible character (``vision_tools.text.chars``).
"""

from __future__ import annotations

import re
import unicodedata

from vision_tools.documents import config
from vision_tools.documents.name_words import NAME_LEXICON
from vision_tools.documents.patterns import ADDRESS_LEXICON, ADDRESS_WORD, POSTCODE, REGION_WORD

#: Short words of company suffixes and name parts: a one-letter slip in them is as telling as in a long word.
SUFFIX_WORDS = frozenset(["SDN", "BHD", "BERHAD", "SENDIRIAN", "ENTERPRISE", "ENTERPRISES", "TRADING", "LTD",
                          "PLT", "CO", "COMPANY", "RESTORAN", "RESTAURANT", "KEDAI", "MART", "STORE", "SHOP"])
#: Address words too short for the general lexicon's one-letter test but telling when misread.
SHORT_ADDRESS_WORDS = frozenset(["JLN", "JALAN", "TMN", "LRG", "KG", "LOT", "NO", "BLK", "JL"])
_WORD = re.compile(r"[A-Za-zÀ-ÿ]+")
#: A company registration number (6-12 digits and a check letter: "0195932-X"); a lot number "1851-A" is not.
_REGISTRATION_NUMBER = re.compile(r"\b\d{6,12}\s?-\s?[A-Z]\b")
_LABELLED_CODE = re.compile(r"\b[A-Z]{2,4}\s*(?:NO|NUM)\.?\s*:", re.IGNORECASE)


def near_miss_words(text: str, field: str) -> list[str]:
    """Words of ``text`` that are one letter away from a word of ``field``'s vocabulary without being one."""
    # Long name words only: shorter ones have real neighbours (PRINT/PAINT).
    if field == "company":
        vocabulary = SUFFIX_WORDS | {w for w in NAME_LEXICON if len(w) >= config.CONFIG.min_name_word}
    else:
        vocabulary = ADDRESS_LEXICON | SHORT_ADDRESS_WORDS
    known = vocabulary | NAME_LEXICON | ADDRESS_LEXICON | SUFFIX_WORDS | SHORT_ADDRESS_WORDS
    out = []
    for match in _WORD.finditer(text):
        word = _fold(match.group(0)).upper()
        if word in known or len(word) < 3:
            continue
        # Short place words have real neighbours (JAYA/RAYA): only the short street abbreviations count.
        shorts = SUFFIX_WORDS if field == "company" else SHORT_ADDRESS_WORDS
        short = len(word) < config.CONFIG.min_long_word
        pool = {w for w in (shorts if short else vocabulary) if len(w) == len(word)}
        # A short word counts only where such words stand: a suffix at the end of a name, a street word first.
        if short and not _in_suffix_position(text, match, field):
            continue
        if any(_one_apart(word, w) for w in pool):
            out.append(match.group(0))
    return out


def unusual_accents(value: str, page: str) -> int:
    """Accented letters in ``value`` when the page around it is printed without accents (under 1 % of its
    letters carry one); 0 otherwise."""
    letters = [c for c in page if c.isalpha()]
    accented_page = sum(_accented(c) for c in letters)
    if not letters or accented_page > 0.01 * len(letters) + sum(_accented(c) for c in value):
        return 0
    return sum(_accented(c) for c in value)


def address_shape(value: str) -> float:
    """1 when ``value`` reads as an address (a number and a street, area, region word or a postcode), 0.5 with
    only one of the two, 0 with neither (a code or a name answered as an address)."""
    has_number = bool(re.search(r"\d", value))
    has_place = bool(ADDRESS_WORD.search(value) or POSTCODE.search(value) or REGION_WORD.search(value))
    words = len(_WORD.findall(value))
    if has_number and has_place and words >= 2:
        return 1.0
    return 0.5 if (has_number or has_place) and words >= 2 else 0.0


def foreign_code(value: str) -> bool:
    """A registration number or a labelled code ("BR No.: 0195932-X") inside an address: a line from elsewhere
    on the receipt taken into it."""
    return bool(_REGISTRATION_NUMBER.search(value) or _LABELLED_CODE.search(value))


def leads_with_name(value: str) -> bool:
    """An address whose first part has no number and no street, building or region word ("IKEA ,Cheras No 2A
    ..."): a branch or shop name taken into it."""
    first = re.split(r"[,.]", value, maxsplit=1)[0]
    return not re.search(r"\d", first) and not (ADDRESS_WORD.search(first) or REGION_WORD.search(first))


def ends_open(value: str) -> bool:
    """An address that stops on a comma, an ampersand or a hyphen: its last line was left out."""
    return value.rstrip().endswith((",", "&", "-", "/"))


def lookalike_digits(value: str) -> int:
    """Words of a name mixing letters with digits that pass for letters ("D.1.Y", "B0OKS"): a letter misread."""
    return sum(1 for token in re.findall(r"[A-Za-z0-9.]+", value)
               if re.search(r"[A-Za-z]", token) and re.search(r"[0158]", token)
               and sum(c.isalpha() for c in token) >= sum(c.isdigit() for c in token))


def leads_with_code(value: str) -> bool:
    """A name that begins with a code or number ("#000002 BAIFU (M) Sdn Bhd"): a line number taken into it."""
    return bool(re.match(r"^\W*(?:#|\d{4,})", value))  # "99 SPEED MART" is a name


def reads_as_address(value: str) -> bool:
    """A "name" that holds a house number and street words: the address line answered as the issuer."""
    return bool(re.search(r"\d", value)) and len(ADDRESS_WORD.findall(value)) >= 2


def truncated_words(value: str) -> int:
    """Words that are the end of a place word with its first letters lost ("ANGOR" for SELANGOR)."""
    out = 0
    for token in re.findall(r"[A-Za-z]{3,}", value):
        word = token.upper()
        if word not in ADDRESS_LEXICON and any(w.endswith(word) and len(w) - len(word) >= 2 for w in ADDRESS_LEXICON):
            out += 1
    return out


def _in_suffix_position(text: str, match: re.Match[str], field: str) -> bool:
    words = _WORD.findall(text)
    index = len(_WORD.findall(text[:match.start()]))
    if field == "company":
        return index >= len(words) - 2  # "... SDN BHO"
    return True


def _one_apart(a: str, b: str) -> bool:
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _accented(ch: str) -> bool:
    return ch.isalpha() and unicodedata.normalize("NFKD", ch) != ch


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
