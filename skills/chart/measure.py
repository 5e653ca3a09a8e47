"""Whether a chart measures what a question asks about.

"On average how many sunny days does Porto Alto get in July?" over a chart of July's rainfall is no look-up of
July's bar, and "How many dollars does the household spend on food?" over a pie of shares is no share. A question
asking "how many <things>" or "how much <stuff>" names a measure; a chart answers it only when every word of that
measure is printed on it (its title, axis titles, legend, labels), or, for money or a unit, when the chart prints
its sign ("$", "°C", "km").
"""

from __future__ import annotations

import re

from skills.chart.names import counts_the_categories, norm, spellings, typed_slip
from skills.question_text import written_out
from vision_tools.charts import ChartResult

#: "how many sunny days", "how much revenue", "how many dollars per month": the words naming the measure, up to the
#: first word that starts the rest of the question.
_MEASURE = re.compile(r"\bhow (?:many|much)\s+(?P<words>(?:[a-z][a-z'-]*\s+){0,3})", re.I)
_ENDS_MEASURE = {"did", "does", "do", "is", "are", "was", "were", "will", "would", "has", "have", "had", "can",
                 "could", "in", "of", "for", "per", "on", "at", "from", "to", "by", "than", "the", "a", "an", "this",
                 "that", "there", "they", "we", "it", "each", "between", "during", "across", "according"}
_VERBS = {"use", "uses", "went", "go", "came", "come", "got", "get", "gets", "make", "makes", "made", "sold", "sell",
          "spent", "spend", "spends", "live", "lives", "work", "works", "took", "take", "bought", "buy", "fell", "rose"}
#: Words that say what is done with the value, not which: "what is the average … of", "the value in".
#: ("growth", "rate", "change" are measures of their own: "the population growth rate in the coastal region" is no
#: population, so they must be printed.)
_OPERATIONS = {"value", "values", "number", "amount", "figure", "average", "avg", "mean", "median", "sum", "level",
               "difference", "total",
               "highest", "lowest", "largest", "smallest", "biggest", "maximum", "minimum", "max", "min", "peak",
               "most", "least", "estimated", "approximate", "exact", "reported", "recorded", "actual"}
#: Verbs that turn a measure into its opposite: "how many goals did Riverside concede" over goals scored.
_OPPOSING = re.compile(r"\b(?:concede[ds]?|conceding|lose|loses|lost|losing|miss(?:es|ed)?|allow(?:s|ed)?|"
                       r"refund(?:s|ed)?|return(?:s|ed)|cancel(?:l?ed|s)?|reject(?:s|ed)?|owe[ds]?|against)\b", re.I)
#: Words that say how much, not of what.
_NOT_A_MEASURE = {"more", "less", "fewer", "total", "overall", "altogether", "combined", "thousand", "thousands",
                  "million", "millions", "billion", "k", "m", "bn", "percent", "percentage", "points", "units",
                  "times", "exactly", "approximately", "roughly", "about", "around", "higher", "lower", "bigger",
                  "larger", "smaller", "extra", "greater",
                  # "the second biggest source": a rank, never a measure (nor seconds of time)
                  "second", "third", "fourth", "fifth", "2nd", "3rd", "4th", "5th", "next"} | _OPERATIONS
#: Words for people, and the nouns of charts that count them.
_PEOPLE = {"people", "ppl", "persons", "folks", "individuals"}
_COUNTS_PEOPLE = re.compile(r"\b(?:visitors?|customers?|users?|students?|passengers?|members?|attendees?|attendance|"
                            r"patients?|donors?|riders?|fans?|viewers?|listeners?|subscribers?|residents?|employees?|"
                            r"staff|workers?|volunteers?|guests?|shoppers?|pupils?|participants?|respondents?|"
                            r"runners?|admissions?|footfall|population|headcount)\b")
#: Values that "longer" and "shorter" compare: times and lengths.
_DURATION_OR_LENGTH = re.compile(r"\b(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?|time|times|duration|"
                                 r"wait|waits|length|distance|km|miles?|metres?|meters?|cm|mm)\b")
#: Words naming a share: "what share of sessions came from social media" over a donut of traffic sources.
#: "over 40 km", "less than $5": a count of the categories past a number (``thresholds.count_against``).
_PAST_A_NUMBER = re.compile(r"\b(?:above|over|more than|greater than|higher than|exceed\w*|at least|below|under|"
                            r"less than|fewer than|lower than|at most)\s+[$€£¥]?\d")
_SHARE_WORDS = {"share", "shares", "proportion", "proportions", "portion", "fraction", "percent", "percentage",
                "percentages", "part", "rate", "rates"}  # "occupancy rate", "success rate": a share in percent
#: "How much did rent cost?", "how many were sold": an amount, unless it is "how much of" the whole or a gap.
_ASKS_AMOUNT = re.compile(r"\bhow (?:much|many)\b(?! of\b| more\b| less\b| fewer\b| higher\b| lower\b| bigger\b|"
                          r" smaller\b| larger\b| greater\b)|"
                          # "how many of the people surveyed take the train?": a number of people, not their share
                          r"\bhow many of (?:the |those |these |all )?(?!categories\b|slices\b|segments\b|sectors\b|"
                          r"groups\b|items\b|bars\b|options\b|answers\b|reasons\b|modes\b|types\b|kinds\b)"
                          r"[a-z]+\b", re.I)
_NAMES_A_SHARE = re.compile(r"%|\bpercent|\bshares?\b|\bproportion|\bportion|\bfraction|\bpoints?\b", re.I)
#: Words of an amount that a share is not: "how many units", "how many thousand".
_AMOUNTS = {"units", "thousand", "thousands", "million", "millions", "billion", "k", "m", "bn"}
#: "What was the net profit in Q2?", "whats the average salary in engineering": the measure before the category.
_WHAT_MEASURE = re.compile(r"\bwhat(?:'s|s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+)?"
                           r"(?P<words>(?:[a-z][\w'’-]*\s+){1,5}?)(?:in|of|for|during|at|from|on)\b", re.I)
#: "came from mobile devices", "via the app", "using public transport": a source the value is narrowed to.
_FROM_SOURCE = re.compile(r"\b(?:from|via|through|using)\s+(?P<words>(?:[a-z][a-z'-]*\s*){1,3})", re.I)
#: "pay for gas", "spent on rent": what the money goes to, which the chart must print.
_PAID_FOR = re.compile(r"\b(?:pay|pays|paid|paying|spend|spends|spent|spending|charged?)\s+(?:for|on)\s+"
                       r"(?P<words>(?:[a-z][a-z'-]*\s*){1,3})", re.I)
#: Words of a narrowing phrase that name no source: "from the chart", "from 2019 to 2020" (numbers are skipped).
_GENERIC = {"chart", "graph", "plot", "figure", "image", "picture", "data", "table", "above", "below", "here",
            "start", "beginning", "end", "first", "last", "previous", "next", "one", "two", "and", "or", "all",
            "each", "every", "these", "those", "them", "its", "their", "our", "my", "year", "month", "week", "day",
            "quarter", "period", "time", "now", "then", "average", "mean", "total", "value", "values"}
_CURRENCY = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|revenue|sales|cost|price|income|spend)", re.I)
#: Units a chart prints as a sign or an abbreviation (by the singular): "how many degrees" over a chart in °C.
_UNIT_SIGNS = {
    **dict.fromkeys(("dollar", "euro", "pound", "money", "usd", "eur", "gbp", "buck", "cash"), _CURRENCY),
    "degree": re.compile(r"°|\bdeg\b|\btemperature"), "hour": re.compile(r"\b(?:h|hrs?)\b"),
    "minute": re.compile(r"\bmins?\b"), "second": re.compile(r"\bs(?:ecs?)?\b"),
    **dict.fromkeys(("kilometre", "kilometer"), re.compile(r"\bkm\b")), "mile": re.compile(r"\bmi\b"),
    **dict.fromkeys(("millimetre", "millimeter"), re.compile(r"\bmm\b")),
    **dict.fromkeys(("kilogram", "kilo"), re.compile(r"\bkg\b")),
    "tonne": re.compile(r"\bt\b|\btons?\b"), "litre": re.compile(r"\bl\b"),
}

#: Questions that ask for a value in a kind of unit, and how a chart prints that kind: "on average how long is a
#: weather delay in minutes?" over a pie of delay causes asks for a duration, which no share is. A chart answers
#: them only when it prints such a unit (an axis in "min", a title naming "wait time").
#: "how many km", "how many more hours": a unit counted, which the chart must measure in.
_HOW_MANY_OF = r"\bhow many (?:more |fewer |less |extra )?"
_UNIT_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    ("a duration", re.compile(r"\bhow long\b|\bduration\b|\bin (?:seconds|minutes|hours|days|weeks)\b|"
                              rf"{_HOW_MANY_OF}(?:seconds|minutes|mins|hours|hrs)\b", re.I),
     re.compile(r"\b(?:s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|wks?|months?|years?|yrs?|"
                r"time|times|duration|wait|waits|waiting|delay|delays|length|lasted)\b|\d\s*(?:s|min|h|d)\b")),
    ("a distance", re.compile(r"\bhow far\b|\bdistance\b|\bin (?:km|kilomet(?:re|er)s|miles|metres|meters)\b|"
                              rf"{_HOW_MANY_OF}(?:km|kms|kilomet(?:re|er)s|miles|metres|meters)\b", re.I),
     re.compile(r"\b(?:km|kilomet\w*|mi|miles?|m|metres?|meters?|ft|feet|yards?|distance)\b")),
    ("a weight", re.compile(r"\bhow heavy\b|\bweigh(?:s|ed|t)?\b|\bin (?:kg|kilograms|grams|tonnes|tons|lbs)\b|"
                            rf"{_HOW_MANY_OF}(?:kg|kilograms|grams|tonnes|tons|lbs)\b", re.I),
     re.compile(r"\b(?:kg|g|grams?|kilograms?|lbs?|pounds|tonnes?|tons?|t|weight|weighs)\b")),
    ("a height", re.compile(r"\bhow tall\b|\bheights?\b|\bin (?:cm|centimet(?:re|er)s|inches|feet)\b", re.I),
     re.compile(r"\b(?:cm|mm|m|centimet\w*|metres?|meters?|in|inch\w*|ft|feet|foot|heights?|tall\w*|lengths?)\b")),
    ("a speed", re.compile(r"\bhow fast\b|\bspeed\b|\bin (?:mph|km/h|kph)\b", re.I),
     re.compile(r"mph|km/?h|kph|m/s|\bspeeds?\b|\bknots?\b")),
    ("a temperature", re.compile(r"\bhow (?:hot|cold|warm)\b|\btemperature\b|\bin degrees\b", re.I),
     re.compile(r"°|\bdegrees?\b|\btemp")),
    ("an age", re.compile(r"\bhow old\b", re.I), re.compile(r"\bages?\b|\bold\b|\byears?\b|\byrs\b")),
    # "how much does a ticket to the gallery cost?" over a chart of its visitors
    # "Sales" or "revenue" printed is no price: units are sold too.
    ("an amount of money", re.compile(r"\bcost(?:s|ed|ing)?\b|\bprices?\b|\bfares?\b|\bfees?\b|\bhow much money\b|"
                                      r"\bhow much (?:do|does|did|will|would)\b.*\b(?:pay|spend|earn|charge)\b", re.I),
     re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|pounds|costs?|prices?|fees?|fares?|spend\w*|spent|"
                r"expens\w*|budget\w*|paid|pay)\b", re.I)),
)


def unprinted_measure(chart: ChartResult, question: str) -> str | None:
    """The measure ``question`` asks for ("sunny days", "net profit") or a source it narrows it to ("from mobile
    devices") when the chart prints it nowhere, else None."""
    printed = " ".join([chart.title, *chart.texts, *chart.series, *chart.legend, *chart.categories]).lower()
    # "how many hrs of minecraft" over "Hours played": the words in full.
    question = re.sub(r"[a-z]+", lambda w: written_out(w.group(0)), question.lower())
    # The chart's names as a question spells them: "from January to June" over ticks "Jan" … "Jun".
    names = {spelling for name in [*chart.categories, *chart.series] for spelling in spellings(norm(name))}
    if (verb := _OPPOSING.search(question)) and not printed_word(verb.group(0).lower(), printed):
        return verb.group(0).lower()
    if (split := _VERSUS.search(question)) is not None:
        # "how many of the August loans were ebooks vs print books?" over total loans: the split is not shown.
        left = " ".join(w for w in split.group("left").split() if w.lower() not in _LINKING)
        right = " ".join(w for w in split.group("right").split() if w.lower() not in _LINKING)
        sides = [w for w in f"{left} {right}".lower().split() if len(w) > 2]
        if sides and not any(printed_word(w, printed) or w in names for w in sides):
            return f"{left} vs {right}"
    for kind, asks, printed_as in _UNIT_KINDS:
        if asks.search(question) and (in_percent(chart) or not printed_as.search(printed)):
            return kind
    if _ASKS_MONEY.search(question) and (unit := _value_unit(chart)) is not None and not _MONEY_UNIT.search(unit):
        # "how much did the electricity cost in March?" over "Electricity use (kWh)": the values are no money.
        return f"an amount of money (the chart's values are {chart.value_title.strip()})"
    # "how much mackerel was caught" over a legend "Mackerel": the series' own value, no other measure.
    # "how much longer is lasagne than spag bol" over cooking times: a difference of the values, no measure.
    lasting = {"longer", "shorter"} if _DURATION_OR_LENGTH.search(printed) else set()
    # "how many thousand ppl visited" over "Trail visitors (thousands)": the chart counts people.
    lasting |= _PEOPLE if _COUNTS_PEOPLE.search(printed) else set()
    counted = [w for w in _counted_words(question) if w not in names and w not in lasting]
    if counted and _PAST_A_NUMBER.search(question) and counts_the_categories(counted[-1], chart):
        # "how many training weeks were over 40 km" over weeks 1-12: the categories are counted, not measured.
        counted = []
    if counted and in_percent(chart):
        return f"{' '.join(counted)} as a number (the chart gives shares in percent)"
    if in_percent(chart) and _ASKS_AMOUNT.search(question) and not _NAMES_A_SHARE.search(question):
        return "an amount (the chart gives shares in percent)"  # "how much did rent cost" over a budget pie
    for word in counted:
        # "how many sunny days" over "Sunny days a year" asks for what is printed, unit and all.
        if (unit := _only_before_a_unit(word, printed)) is not None and unit not in " ".join(counted):
            return f"{word} as a number (the chart gives {unit})"
    if counted and (unit := _value_unit(chart)) is not None and not any(
            printed_word(w, chart.value_title.lower()) or w == unit for w in counted):
        # "how many parcels does Team North deliver?" over "Average route length per van per day (km)": the values
        # are kilometres, whatever else the title names.
        return f"{' '.join(counted)} (the chart's values are {chart.value_title.strip()})"
    shares = in_percent(chart)
    if "points" in _measure_words(question) and not shares and not re.search(r"percentage points?|%\s*points?",
                                                                             question, re.I) \
            and not printed_word("points", printed):
        return "points"  # "how many points did Rovers have?" over league positions: no share's points either
    for words in (_measure_words(question), _narrowing_words(question)):
        # A share is what a pie or a chart in percent measures, whether it prints the word or not.
        asked = [w for w in words if w not in _NOT_A_MEASURE and len(w) > 2 and w not in names and w not in lasting
                 and not (shares and w in _SHARE_WORDS)]
        covered = _in_compounds(words, printed)
        tokens = set(re.findall(r"[a-z]+", printed))
        missing = [w for w in asked if w not in covered and not (printed_word(w, printed) or unit_printed(w, printed))
                   and not any(typed_slip(w, t) for t in tokens)]
        if missing:
            return " ".join(missing)
    return None


_ASKS_MONEY = re.compile(r"\b(?:cost|costs|costing|price|prices|priced|spend|spent|pay|paid|fees?|bills?)\b|"
                         r"\bhow much money\b", re.I)
_MONEY_UNIT = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|cents?|pence|p)\b", re.I)
_LINKING = {"were", "was", "are", "is", "the", "of", "for", "between", "and", "or", "in", "on", "a", "an"}
#: "ebooks vs print books": the one or two words either side of "vs" or "versus".
_VERSUS = re.compile(r"(?P<left>\b[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:vs\.?|versus)\s+(?P<right>[a-z][\w-]*"
                     r"(?:\s+[a-z][\w-]*)?)", re.I)

#: Nouns a chart measures in, which turn the word before them into a modifier: "Volunteer hours" counts hours.
_UNIT_NOUNS = ("hours", "hrs", "minutes", "mins", "days", "weeks", "months", "years", "trips", "visits", "miles",
               "km", "kilometres", "kilometers", "spending", "spend", "sales", "revenue", "costs", "cost", "income",
               "wages", "salaries", "pay", "time", "share", "shares", "rate", "rates")


def _only_before_a_unit(word: str, printed: str) -> str | None:
    """"volunteer hours" when ``printed`` names the counted ``word`` ("volunteers") only before a unit noun: "how many
    volunteers worked?" over "Volunteer hours by program" asks a count the chart does not give."""
    stem = re.escape(re.sub(r"(?:ies|es|s)$", "", word) or word)
    uses = list(re.finditer(rf"\b{stem}\w*(?:\s+(?P<next>[a-z]+))?", printed))
    units = [m.group(0) for m in uses if m.group("next") in _UNIT_NOUNS]
    return units[0] if uses and len(units) == len(uses) else None


#: "carried the most cars", "the highest number of visitors": the thing an extreme is counted in.
_EXTREME_OF = re.compile(r"\b(?:most|fewest|least|highest|lowest|largest|biggest|smallest|greatest)\s+"
                         r"(?:number\s+of\s+|amount\s+of\s+)?(?P<noun>[a-z]{3,}s)\b")


def unprinted_extreme_noun(chart: ChartResult, text: str) -> str | None:
    """The plural noun an extreme is counted in ("which route carried the most cars?") when the chart prints it
    nowhere (a chart of passengers), else None. ``text`` is the normalised question."""
    match = _EXTREME_OF.search(text)
    if match is None:
        return None
    noun = match.group("noun")
    printed = " ".join([chart.title, chart.value_title, *chart.texts, *chart.series, *chart.legend,
                        *chart.categories]).lower()
    names = {spelling for name in [*chart.categories, *chart.series] for spelling in spellings(norm(name))}
    if noun in _NOT_A_MEASURE or noun in names or noun in _SHARE_WORDS or printed_word(noun, printed) or \
            unit_printed(noun, printed):
        return None
    return noun


def _value_unit(chart: ChartResult) -> str | None:
    """The unit the value axis's title gives its values in, in brackets at its end ("Route length (km)": "km"); None
    without one, or for a scale ("(thousands)") or a count ("(number)"), which any counted thing may be in."""
    unit = re.search(r"\(([^()]{1,24})\)\s*$", chart.value_title or "")
    if unit is None:
        return None
    word = unit.group(1).strip().lower()
    scale = re.fullmatch(r"(?:in\s+)?(?:'?000s?|thousands?|millions?|billions?|k|m|mn|bn|number|count|no\.?|n)", word)
    return None if scale else word


def in_percent(chart: ChartResult) -> bool:
    """Whether the chart's values are percentages: a pie, a value axis titled in percent, or numbers printed with "%"
    (ticks or labels) for at least half of those printed."""
    if chart.kind == "pie" or re.search(r"\(\s*%\s*\)|\bin\s+%|\bper ?cent\b", chart.value_title or "", re.I):
        return True  # "Occupancy (%)": ticks printed without the sign
    numbers = [t for t in chart.texts if re.search(r"\d", t)]
    shares = [t for t in numbers if re.search(r"\d\s*%", t)]
    return len(shares) >= 2 and 2 * len(shares) >= len(numbers)


def _counted_words(question: str) -> list[str]:
    """The things a "how many …"/"how much …" question counts or totals, other than a share: "how many <phones> did
    Apex ship", "how many <units>", but not "how many percent" or "how many points higher"."""
    match = _MEASURE.search(question)
    if match is None:
        return []
    return [w for w in _measure_words(question) if w not in _NOT_A_MEASURE - _AMOUNTS]


def _measure_words(question: str) -> list[str]:
    """The words naming the measure: "how many <sunny days> …", "what was the <net profit> in Q2?"."""
    match = _MEASURE.search(question) or _WHAT_MEASURE.search(question)
    if match is None:
        return []
    words: list[str] = []
    for word in match.group("words").lower().replace("’", "'").split():
        word = word.removesuffix("'s")  # "madrid's avg temp": Madrid is named, not measured
        if word in _ENDS_MEASURE or (word.endswith("ed") and len(word) > 4) or word in _VERBS:
            break  # "how many tourists visited …", "how many people use …": the verb starts the rest
        words.append(word)
    return words


def _narrowing_words(question: str) -> list[str]:
    """The words of a source a value is narrowed to: "how many visits came <from mobile devices> in 2022?", or
    what money is paid for: "how much does a household in Spain pay <for gas>?"."""
    if (paid := _PAID_FOR.search(question)) is not None:
        return [w for w in paid.group("words").lower().split() if w not in _ENDS_MEASURE and w not in _GENERIC]
    match = _FROM_SOURCE.search(question)
    if match is None or re.search(r"\bfrom\b.*\b(?:to|until|till)\b", question, re.I):
        return []  # "from January to June" is a span of the chart, not a source
    return [w for w in match.group("words").lower().split() if w not in _ENDS_MEASURE and w not in _GENERIC]


def printed_word(word: str, text: str) -> bool:
    """``word`` in ``text``, allowing a plural or a verb's ending ("sign-ups" for "signups", "days") and a
    compound ("rain falls" in "Rainfall"); a short stem only as a word of its own."""
    stem = re.sub(r"(?:ies|es|s|ed|ing)$", "", word.replace("-", "")) or word
    joined = text.replace("-", "")
    if len(stem) < 4:  # "car" is no word of "carried"
        return re.search(rf"\b{re.escape(stem)}(?:s|es|ies|ed|ing)?\b", joined) is not None
    return stem in joined


def _in_compounds(words: list[str], text: str) -> set[str]:
    """The words of ``words`` printed joined to their neighbour: "sign ups" as "Sign-ups", "check ins"."""
    joined = text.replace("-", "")
    return {w for a, b in zip(words, words[1:], strict=False) if printed_word(a + b, joined) for w in (a, b)}


def unit_printed(word: str, text: str) -> bool:
    """Whether ``word`` is a unit ("dollars", "degrees") whose sign or abbreviation ``text`` prints."""
    sign = _UNIT_SIGNS.get(word.removesuffix("s"))
    return sign is not None and sign.search(text) is not None


#: "Which quarter has the largest gap between 2023 and 2024?", "Which region grew the most?": a change between
#: values, not the extreme of one value.
_CHANGE = re.compile(r"\b(?:gap|difference|differ\w*|change[ds]?|growth|gr[eo]w\w*|increase[ds]?|decrease[ds]?|"
                     r"drop(?:ped|s)?|rise|rose|fell|fall|jump(?:ed)?|gain(?:ed)?|lost|loss|improve\w*)\b")


def asks_a_change(chart: ChartResult, text: str) -> bool:
    """A change word in the question that the chart does not print: "which region grew the most?" over sales.

    A chart titled "GDP growth (%)" plots the growth itself, so "the lowest growth" is its lowest value.
    """
    printed = " ".join(norm(t) for t in chart.texts)
    return any(not re.search(rf"\b{re.escape(m.group(0))}\b", printed) for m in _CHANGE.finditer(text))


def counted_by_the_values(noun: str, chart: ChartResult) -> bool:
    """Whether ``noun`` is what the values count, named in the value axis's title ("viewers" in "Peak concurrent
    viewers (thousands)"): a superlative of it asks for an amount, not for the category that has it."""
    stem = noun.lower().removesuffix("s")
    return len(stem) > 2 and any(w.removesuffix("s") == stem for w in re.findall(r"[a-z]+", chart.value_title.lower()))
