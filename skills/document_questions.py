"""Which field of a receipt or invoice a question asks for, whatever its wording, and whether a read field is
certain enough to be the answer.

``document_field("How much did I pay?")`` -> ``DocumentQuestion("total", ...)``; "Which shop is this from?" ->
company; "When was this bought?" -> date; "Where is the store?" -> address; "What is the invoice number?" -> the
printed label "invoice number". Questions that name no field (transcriptions, scene text) give None.

``settle(field_answer)`` is the one place that turns a read field into an answer or an abstention:
below ``DEFAULT_MIN_CONFIDENCE`` there is no answer, and the result says what is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Confidence a field needs to be given as the answer; below it the skill abstains and says what is missing.
#: Chosen from the risk-coverage table of ``benchmarks.bench_receipts`` on the sroie-dev tuning split; the
#: registry's ``orchestrator.min_confidence`` is meant to replace it once the loop passes it to skills.
DEFAULT_MIN_CONFIDENCE = 0.5

_MONEY_LABEL = re.compile(
    r"\b(?P<label>service\s+(?:charge|tax)|sub[\s-]?total|rounding(?:\s+adj\w*)?|discount|deposit|tips?|"
    r"change|cash(?:\s+tendered)?|tax|gst|sst|vat)\b", re.IGNORECASE)
_TOTAL_TAX = re.compile(r"\btotal\s+(?:tax|gst|sst|vat)\b|\b(?:tax|gst|sst|vat)\s+total\b", re.IGNORECASE)
_BEFORE_TAX = re.compile(r"\b(?:total|amount)\s+(?:before|excluding|excl\.?|without)\s+(?:the\s+)?(?:tax|gst|sst|vat)\b",
                         re.IGNORECASE)
_TAX_INCLUDED = re.compile(r"\b(?:incl\w*|with|after|plus|inclusive)\s+(?:of\s+)?(?:the\s+)?(?:tax|gst|sst|vat)\b",
                           re.IGNORECASE)
_TOTAL = re.compile(
    r"\b(?:grand\s+|nett?\s+|final\s+)?total\b|\bamount\s+(?:due|payable|paid|to\s+pay|charged|spent|owed)\b|"
    r"\bhow\s+much\b.*\b(?:pay|paid|cost|costs|spent|spend|charged|owe|owed|due|come\s+to|bill|total|in\s+all)\b|"
    r"\bhow\s+much\s+(?:was|is|did)\s+(?:it|this|the\s+(?:bill|receipt|purchase|order|meal))\b|"
    r"\bwhat\s+did\s+(?:it|this|the\s+\w+)\s+cost\b|\b(?:the\s+)?(?:bill|sum)\s+(?:amount|total)\b|"
    r"\bwhat\s+(?:was|is)\s+the\s+(?:bill|damage|sum)\b|\bprice\s+paid\b|\bbalance\s+due\b|\bamount\s+due\b|"
    r"\bfinal\s+amount\b|\bamount\b.*\b(?:had|have|need|needed)\s+to\s+pay\b",
    re.IGNORECASE)
#: "How much did each tomato cost?", "How much did the croissant cost?": one item, not the whole purchase.
_WHOLE = (r"(?!bill\b|receipt\b|purchase\b|order\b|meal\b|total\b|shopping\b|groceries\b|transaction\b|sale\b|"
          r"visit\b|lot\b|whole\b|amount\b|payment\b|invoice\b|items?\b|things\b|stuff\b|everything\b|all\b|"
          r"it\b|this\b|that\b|the\b|my\b|our\b|your\b|an?\b|each\b|those\b|these\b)")
_ONE_ITEM = re.compile(r"\bhow\s+much\s+(?:did|does|do|was|were|is|are)\s+(?:each|one|a|an|a\s+single|every|"
                       rf"the|my|our|your|those|these)\s+{_WHOLE}[a-z]+"
                       # "How much did I pay for the bread?", "How much did I spend on milk?"
                       rf"|\b(?:pay|paid|spend|spent)\s+(?:for|on)\s+(?:(?:the|my|our|a|an|each|those|these)\s+)?{_WHOLE}"
                       r"[a-z]+"
                       # "What did the cheddar cost?"
                       rf"|\bwhat\s+(?:did|does|do)\s+(?:the|a|an|each|one|my|our)\s+{_WHOLE}[a-z]+(?:\s+[a-z]+)?\s+"
                       r"cost\b", re.IGNORECASE)
#: "How much more did the cheddar cost than the milk?": a difference, never the total.
#: "How much more …", "… than …", and a change over time ("by how much did the fare rise in total from 2015 to
#: 2024"): a difference, never a printed total.
_COMPARES = re.compile(r"\bhow\s+much\s+(?:more|less|extra|cheaper|dearer)\b|\bthan\b|\bby\s+how\s+much\b|"
                       r"\b(?:rise|rose|risen|increase[ds]?|grow|grew|grown|go\s+up|went\s+up|gone\s+up|fall|fell|"
                       r"fallen|drop(?:ped)?|decrease[ds]?|decline[ds]?|change[ds]?)\b", re.IGNORECASE)
_DATE = re.compile(r"\bwhen\b|\bdate\b|\bwhat\s+day\b|\bwhich\s+day\b|\bday\s+of\s+(?:the\s+)?purchase\b|"
                   r"\bpurchased\s+on\b|\bbought\s+on\b|\bdated\b", re.IGNORECASE)
_PLACE = (r"(?:shop|store|business|company|seller|vendor|merchant|restaurant|outlet|retailer|supplier|"
          r"establishment|issuer|place|shop's|store's|premises|branch|cafe|café|coffee\s+shop|bakery|pub|"
          r"bistro|diner|eatery|hotel|pharmacy|chemist|supermarket|minimart|kiosk|salon|clinic|garage|"
          r"dealer|bookstore|bookshop|stationer)")
_ADDRESS = re.compile(rf"\baddress\b|\blocated\b|\blocation\b|\bwhere\s+(?:is|was|are|'s)\s+(?:the\s+|this\s+|it\b)"
                      rf"(?:{_PLACE}\b)?|\bwhere's\s+(?:the\s+|this\s+)?{_PLACE}\b|\bwhere\s+can\s+i\s+find\b",
                      re.IGNORECASE)
_COMPANY = re.compile(
    rf"\b(?:which|what)\s+(?:\w+\s+)?{_PLACE}\b|\bwho\s+(?:issued|sold|printed|is\s+the\s+(?:seller|vendor|"
    rf"merchant|issuer))\b|\bname\s+of\s+(?:the\s+|this\s+)?{_PLACE}|\b{_PLACE}\s*(?:'s)?\s+name\b|"
    rf"\b(?:the|this)\s+{_PLACE}\s+called\b|"
    r"\bwhere\s+(?:did\s+i|did\s+we|was\s+(?:this|it))\s+(?:buy|bought|shop|purchased?|eat)\b|"
    r"\bissued\s+by\b|\bsold\s+by\b|\bfrom\s+which\b|\bwhich\b.*\b(?:is\s+this|was\s+this)\s+from\b",
    re.IGNORECASE)
_GENERIC = re.compile(r"^\s*(?:what(?:'s|\s+is|\s+was|\s+are)|give\s+me|find|tell\s+me|read)\s+(?:the\s+|this\s+)?"
                      r"(?P<label>[a-z][a-z0-9 #./-]{1,40}?)\s*(?:\b(?:on|in|of|for|from|printed|shown|written|at)\b"
                      r"(?P<rest>.*?))?\??\s*$", re.IGNORECASE)
#: Words after "in", "on", "for" … that name the page, not which value: "the total on this receipt".
_THE_PAGE = frozenset(["the", "this", "that", "these", "it", "here", "a", "an", "my", "our", "receipt", "bill",
                       "invoice", "ticket", "label", "sign", "tag", "page", "document", "image", "picture", "photo",
                       "paper", "card", "screen", "package", "packet", "box", "jar", "bottle", "board", "notice",
                       "poster", "menu", "form", "slip", "chart", "graph", "front", "back", "top", "bottom",
                       "printed", "shown", "written", "on", "in", "at", "of", "is", "was", "below", "above", "there"])
_BARE = re.compile(r"^\s*(?:the\s+)?(?P<label>[a-z][a-z0-9 #./-]{1,30}?)\s*\?\s*$", re.IGNORECASE)
_WHO_TIME = re.compile(r"\bwho\s+(?:was|is)\s+the\s+(?P<label>cashier|operator|salesperson|staff|server|waiter)\b|"
                       r"\bwhat\s+time\b", re.IGNORECASE)
#: "What time was this receipt printed?", "time of purchase?": the time the document was issued.
_ISSUE_TIME = re.compile(r"\bwhat\s+time\b.{0,40}\b(?:printed|issued|purchased?|bought|paid|made|placed|ordered|"
                         r"transaction|sale)\b|\btime\s+of\s+(?:the\s+)?(?:purchase|transaction|sale|issue|payment|"
                         r"order)\b", re.IGNORECASE)
#: Words that ask about the text itself, not a field: those questions go to transcription.
_NOT_A_LABEL = frozenset(["text", "word", "words", "writing", "written", "title", "sign", "letter", "letters",
                          "message", "caption", "answer", "colour", "color", "image", "picture", "object", "shown",
                          "said", "says", "displayed", "visible", "this", "it", "there", "meaning", "language",
                          "font", "brand", "logo"])


@dataclass(frozen=True)
class DocumentQuestion:
    """The field a question asks for: ``total``, ``date``, ``company``, ``address``, or a printed label."""

    field: str
    wording: str  # the words of the question that decided it, for the trace
    #: Words that narrow which value is asked ("in Q3" of "what was revenue in Q3?"): the value read after the
    #: label answers only where they are printed with it.
    qualifier: tuple[str, ...] = ()
    #: For a date: the event it is the date of ("delivered", "expire"), as the stems a label prints it by (any one
    #: must be on the date's row: "Ship date" is no delivery date). Empty for the document's own date.
    event: tuple[str, ...] = ()

    @property
    def is_label(self) -> bool:
        return self.field not in ("total", "date", "company", "address")


def asks_a_difference(question: str) -> bool:
    """Whether ``question`` asks how much more, less, or how much something changed: a difference of printed values,
    never one of them."""
    return _COMPARES.search(question) is not None


#: What is left to pay after a deposit or part payment: the printed balance, never the total.
_BALANCE = re.compile(r"\bstill\s+(?:owe|owed|to\s+pay|due|have\s+to\s+pay|need\s+to\s+pay)\b|\bleft\s+to\s+pay\b|"
                      r"\b(?:remaining|outstanding)\s+(?:balance|amount|sum|to\s+pay)\b|\bhow\s+much\s+is\s+"
                      r"(?:left|outstanding|remaining)\b|\bwhat(?:'s|\s+is)\s+(?:the\s+)?balance\b(?!\s+due)",
                      re.IGNORECASE)


def document_field(question: str) -> DocumentQuestion | None:
    """The document field ``question`` asks for, or None when it names none."""
    text = " ".join(question.replace("’", "'").split())
    if balance := _BALANCE.search(text):
        return DocumentQuestion("balance", balance.group(0))  # "how much do i still owe": after the deposit
    if before_tax := _BEFORE_TAX.search(text):
        return DocumentQuestion("subtotal", before_tax.group(0))
    money = _MONEY_LABEL.search(text)
    if money and not _TAX_INCLUDED.search(text):
        label = _canonical_money(money.group("label").lower())
        # "total tax" asks for the tax; "the total, tax included" was caught above and asks for the total.
        if label != "tax" or _TOTAL_TAX.search(text) or not re.search(r"\btotal\b", text, re.IGNORECASE):
            return DocumentQuestion(label, money.group(0))
    for field, pattern in (("total", _TOTAL), ("address", _ADDRESS), ("company", _COMPANY), ("date", _DATE)):
        match = pattern.search(text)
        if match and field == "total" and (_ONE_ITEM.search(text) or _COMPARES.search(text)):
            continue  # "How much did each tomato cost?" asks an item's price, never the receipt's total
        if match and field == "date":
            return DocumentQuestion(field, match.group(0), event=event_stems(text))
        if match:
            return DocumentQuestion(field, match.group(0))
    if issued := _ISSUE_TIME.search(text):
        return DocumentQuestion("issue time", issued.group(0))
    special = _WHO_TIME.search(text)
    if special:
        return DocumentQuestion(special.group("label").lower() if special.group("label") else "time",
                                special.group(0))
    generic = _GENERIC.match(text) or _BARE.match(text)
    if generic:
        label = generic.group("label").strip(" .-").lower()
        if label and not set(label.split()) & _NOT_A_LABEL and len(label.split()) <= 4:
            rest = re.findall(r"[a-z0-9]+", (generic.groupdict().get("rest") or "").lower())
            return DocumentQuestion(label, generic.group(0).strip(), tuple(w for w in rest if w not in _THE_PAGE))
    return None


#: Events whose date a question may ask, by the stems labels print them with.
_EVENTS = {"deliver": ("deliver", "arriv", "eta", "expected"), "arrive": ("arriv", "eta", "deliver", "expected"),
           "expire": ("exp", "best before", "use by", "bb"), "ship": ("ship", "dispatch", "sent", "posted"),
           "dispatch": ("dispatch", "ship", "sent"), "due": ("due", "pay by", "payable"), "pay": ("due", "pay by"),
           "produce": ("prod", "mfg", "manufactur", "made"), "manufacture": ("mfg", "manufactur", "prod", "made"),
           "make": ("made", "mfg", "prod", "manufactur"), "start": ("start", "begin", "from", "valid from"),
           "begin": ("begin", "start", "from"), "end": ("end", "until", "valid", "expir", "exp")}
#: Verbs of the document's own date: "when was this bought?" is the receipt's date.
_ISSUE_VERBS = frozenset(["buy", "bought", "purchase", "purchased", "print", "printed", "issue", "issued", "date",
                          "dated", "write", "written", "visit", "visited", "shop", "shopped", "get", "got", "take",
                          "taken", "make", "made", "happen", "happened", "do", "done"])
#: Words after an event's verb that are not it: "due back", "run out", "open up on".
_PARTICLES = frozenset(["back", "out", "off", "over", "again", "on", "in", "at", "of", "for", "to", "from", "by",
                        "with", "please", "pls", "plz", "exactly", "then", "now", "yet"])


#: "the patient's date of birth", "the expiry date": a date named by its event as a noun.
_DATE_OF = re.compile(r"\bdate of (?P<after>[a-z]+)\b|\b(?P<before>[a-z]+)(?= date\b)", re.IGNORECASE)
_DATE_NOUNS = {"birth": ("dob", "d.o.b", "birth", "born"), "expiry": _EVENTS["expire"],
               "expiration": _EVENTS["expire"], "delivery": _EVENTS["deliver"], "admission": ("admi",),
               "collection": ("collect",), "issue": ("issue",), "departure": ("depart",), "arrival": ("arriv",)}


def event_stems(question: str) -> tuple[str, ...]:
    """The stems a label prints the asked date's event by ("deliver", "arriv" … for "when will it be delivered?"),
    or () for the document's own date ("when was this bought?") and questions naming no event."""
    for named in _DATE_OF.finditer(question):
        if (noun := (named.group("after") or named.group("before")).lower()) in _DATE_NOUNS:
            return _DATE_NOUNS[noun]  # "whats the patients date of birth": printed "DOB", never "Admitted"
    asked = re.sub(r"\bruns? out\b", "expire", question.lower())  # a permit "runs out" on its expiry date
    when = re.search(r"\bwhen\b(?P<rest>.*)", asked)
    if when is None:
        return ()
    # "when is dune due back", "when does the offer end on this card": the last word that is no particle and no
    # name of the page.
    verb = next((w for w in reversed(re.findall(r"[a-z]+", when.group("rest")))
                 if w not in _THE_PAGE and w not in _PARTICLES and len(w) >= 3), "")
    if not verb or verb in _ISSUE_VERBS:
        return ()
    for base, stems in _EVENTS.items():
        if verb.startswith(base[:5]) or verb.rstrip("sd").rstrip("e") == base.rstrip("e"):
            return stems
    return (re.sub(r"(?:ied|ed|es|ing|s|e)$", "", verb),)  # "roasted": "roast"


def _canonical_money(label: str) -> str:
    label = re.sub(r"\s+", " ", label)
    if label in ("gst", "sst", "vat"):
        return "tax"
    if label.startswith("sub"):
        return "subtotal"
    if label.startswith("rounding"):
        return "rounding"
    if label.startswith("tip"):
        return "tip"
    return label


@dataclass(frozen=True)
class Settled:
    """What the skill does with a read field: the answer, or None and what is missing."""

    answer: str | None
    confidence: float | None
    missing: str | None


def settle(value: str | None, confidence: float, missing: str | None, field: str,
           min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> Settled:
    """The answer when the field was read with at least ``min_confidence``; otherwise no answer and why."""
    if value is None:
        return Settled(None, None, missing or f"the {field} could not be found")
    if confidence < min_confidence:
        return Settled(None, confidence, f"the {field} read as {value!r} is not certain enough (confidence "
                                         f"{confidence:.2f} < {min_confidence:.2f}); the print may be damaged")
    return Settled(value, confidence, None)
