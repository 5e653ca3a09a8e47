"""The chart's names (categories, series) as a question spells them: "April" for a tick "Apr", "cherry" for a
legend's "Cherries", and in the order the question names them."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from vision_tools.charts import ChartResult

#: Month and weekday names: a chart prints "Apr" where a question says "April", and the other way round.
CALENDAR = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def mentioned(names: list[str], text: str) -> list[str]:
    """Names that occur in ``text`` as whole words, in the order the text names them (the longer first where two
    start at one place); a name inside one already chosen is dropped ("North" inside "North America")."""
    hits = []
    for name in names:
        alternatives = "|".join(re.escape(spelling) for spelling in spellings(norm(name)))
        # "2.5 hours" names no category "5", nor "1,500" a category "500": a number is matched whole.
        pattern = r"(?<![a-z0-9])(?<!\d[.,])(?:" + alternatives + r")(?![a-z0-9]|[.,]\d)"
        match = re.search(pattern, text) if alternatives else None
        if match:
            hits.append((match.start(), -len(name), name))
    hits.sort()
    chosen: list[str] = []
    for _, _, name in hits:
        if not any(norm(name) in norm(other) for other in chosen):
            chosen.append(name)
    return chosen


def spellings(name: str) -> list[str]:
    """``name``, its plural or singular ("tablet" / "tablets", "cherries" / "cherry") and, for a month or weekday,
    its other spelling ("apr" / "april", "sept" / "september")."""
    if not name:
        return []
    found = [name]
    if re.search(r"[a-z]{3}$", name):
        if name.endswith("ies"):
            found.append(name[:-3] + "y")
        elif name.endswith("s") and not name.endswith(("ss", "us", "is")):
            found.append(name[:-1])
        elif name.endswith("y") and name[-2] not in "aeiou":
            found.append(name[:-1] + "ies")
        else:
            found.append(name + ("es" if name.endswith(("s", "x", "z", "ch", "sh")) else "s"))
    if m := _NUMBERED.fullmatch(name):
        # "Year 11" is "yr 11" and "y11"; "Wk3" is "week 3": a numbered period written short or long.
        long = _SHORT_PERIODS.get(m.group(1), m.group(1))
        found += [f"{short} {m.group(2)}" for short, whole in _SHORT_PERIODS.items() if whole == long]
        found += [f"{long} {m.group(2)}", f"{long}{m.group(2)}"]
        if long == "year":
            found.append(f"y{m.group(2)}")
    for full in CALENDAR:
        if name == full:
            found.append(full[:3])
        elif len(name) >= 3 and full.startswith(name.rstrip(".")):
            found.append(full)
    return found


def norm(text: str) -> str:
    """Lower case, words and numbers only, single spaces: how names and questions are compared."""
    return " ".join(re.sub(r"[^a-z0-9%.]+", " ", text.lower()).split())


def unread_calendar_names(categories: list[str], text: str, printed: list[str] | None = None) -> list[str]:
    """Months or weekdays ``text`` names in full, and quarters ("Q2", "H1"), that the chart shows nowhere: not
    among its categories, nor in ``printed`` (its title and other text). "From January to December" over a chart
    whose "Jan" went unread is no question about December alone; "Brew Pro sales in Q2" over "Q3 Sales by
    Product" is about a quarter the chart does not show. ("May" is a verb too, and is never taken for the month.)"""
    shown = norm(" ".join([*categories, *(printed or [])]))
    words = set(shown.split())
    named = [full for full in CALENDAR if full != "may" and re.search(rf"\b{full}\b", text.lower())]
    missing = [full for full in named if not mentioned(categories, full)
               and not any(spelling in words for spelling in spellings(full))]
    quarters = re.findall(r"\b([qh][1-4])\b", text.lower())
    return missing + [q.upper() for q in dict.fromkeys(quarters) if not re.search(rf"\b{q}\b", shown)]


def names_the_categories(noun: str, chart: ChartResult, one_series: bool = False) -> bool:
    """Whether ``noun`` ("fruits", "months") is what the chart's categories are: printed in its title or on an
    axis ("Favourite Fruit Survey"), or the categories are all months, weekdays or years. "How many countries are
    shown?" on a chart of months is no count of its bars. A chart of several series never: the noun may be the
    legend's ("How many fruits?" over months of apples, pears and plums), unless the question names one series
    (``one_series``) and the categories are months, weekdays or years."""
    if len(chart.series) > 1 and not one_series:
        return False  # "How many fruits?" may count the legend's series as well as the categories
    singular = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]
    # The value axis's title names what the values count ("Number of pupils"), not the categories.
    printed = {norm(t) for t in chart.texts} - {norm(c) for c in chart.categories} - {norm(chart.value_title)}
    if len(chart.series) == 1 and any(re.search(rf"\b(?:{re.escape(noun)}|{re.escape(singular)})\b", t)
                                      for t in printed):
        return True
    return all_of_kind(noun, chart.categories)


#: Words for any chart's marks: "how many bars are above 40?" counts categories whatever they are.
_MARK_NOUNS = {"categories", "bars", "columns", "slices", "items", "entries", "groups", "segments", "sectors"}
#: Nouns for the kinds of things a chart's categories are. A noun outside this list ("tourists", "pupils") may
#: count people or units the chart aggregates, which its categories are not: "how many pupils got more than 75?"
#: over average scores per subject.
CATEGORY_NOUNS = {
    "countries", "nations", "states", "regions", "provinces", "counties", "districts", "cities", "towns", "villages",
    "areas", "zones", "neighbourhoods", "neighborhoods", "boroughs", "continents", "markets", "teams", "clubs",
    "companies", "firms", "brands", "products", "models", "subjects", "courses", "departments", "divisions",
    "sectors", "industries", "categories", "groups", "routes", "lines", "stations", "airports", "ports", "schools",
    "universities", "hospitals", "stores", "shops", "branches", "sites", "platforms", "channels", "sources",
    "genres", "languages", "sports", "airlines", "banks", "parks", "museums", "restaurants", "cafes", "hotels",
    "apps", "websites", "services", "segments", "types", "kinds", "classes", "bands", "ranges", "depots",
    "warehouses", "factories", "plants", "farms", "crops", "fruits", "vegetables", "drinks", "dishes", "foods",
    "items", "options", "answers", "responses", "reasons", "causes", "modes", "methods", "devices", "browsers",
    "fuels", "technologies", "projects", "programs", "programmes", "events", "festivals", "games", "films",
    "movies", "books", "songs", "albums", "artists", "authors", "players", "athletes", "candidates", "parties",
}


def counts_the_categories(noun: str, chart: ChartResult, one_series: bool = False) -> bool:
    """Whether "how many <noun>" counts the chart's categories: the noun is printed as what they are
    (``names_the_categories``), a word for any chart's marks ("bars"), or a noun for a kind of thing
    (``CATEGORY_NOUNS``: "countries", "subjects") over categories that are no months, weekdays or years, on a
    chart that does not measure that noun ("Number of countries") and of one series (or one the question names)."""
    if names_the_categories(noun, chart, one_series):
        return True
    if (len(chart.series) > 1 and not one_series) or noun not in CATEGORY_NOUNS | _MARK_NOUNS:
        return False
    if noun in _MARK_NOUNS:
        return True
    if any(all_of_kind(kind, chart.categories) for kind in ("months", "days", "years")):
        return False
    singular = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]
    return not re.search(rf"\b(?:{re.escape(noun)}|{re.escape(singular)})\b", norm(chart.value_title))


def names_some(text: str, categories: list[str]) -> str | None:
    """A word of ``text`` (normalised) that some of the categories have and others not ("eastbay" of "Eastbay –
    Marrow Island" among other routes): the question picks a part of them. None when there is none."""
    for word in dict.fromkeys(text.split()):
        if len(word) < 4 or not word.isalpha() or word in _COMMON_WORDS:
            continue
        having = [c for c in categories if re.search(rf"\b{re.escape(word)}\b", norm(c))]
        if 0 < len(having) < len(categories):
            return word
    return None


def in_time_order(categories: list[str]) -> bool:
    """Whether the categories are times in the order they pass: months, weekdays, years or quarters, rising."""
    for kind, names in (("months", CALENDAR[:12]), ("days", CALENDAR[12:])):
        if all_of_kind(kind, categories):
            # In the calendar's order, wrapping at most once ("Apr" … "Mar" of a financial year), never sorted by value.
            order = [next((i for i, full in enumerate(names) if full.startswith(norm(c).rstrip(".")[:3])), -1)
                     for c in categories]
            wraps = sum(1 for a, b in zip(order, order[1:], strict=False) if b <= a)
            return -1 not in order and wraps <= (1 if order[-1] < order[0] else 0)
    years = [re.search(r"\b((?:19|20)\d\d)\b", c) for c in categories]
    if all(years) and len(categories) >= 2:
        values = [int(m.group(1)) for m in years if m]
        quarters = [re.search(r"\b[qQ]([1-4])\b", c) for c in categories]
        keys = [(v, int(q.group(1)) if q else 0) for v, q in zip(values, quarters, strict=True)]
        return keys == sorted(keys) and len(set(keys)) == len(keys)
    return False


def all_of_kind(noun: str, categories: list[str]) -> bool:
    """Whether every category is a month ("months"), a weekday ("days") or a year ("years")."""
    names = [norm(c) for c in categories]
    kinds = {"months": lambda n: any(full.startswith(n.rstrip(".")) and len(n) >= 3 for full in CALENDAR[:12]),
             "days": lambda n: any(full.startswith(n.rstrip(".")) and len(n) >= 3 for full in CALENDAR[12:]),
             "years": lambda n: re.fullmatch(r"(?:19|20)\d\d", n) is not None}
    test = kinds.get(noun)
    # One label misread ("okan" for "Jan") does not make twelve months something else.
    return len(names) >= 2 and test is not None and sum(1 for n in names if test(n)) >= len(names) - (len(names) >= 6)


#: "which docking station …", "what city …": the noun a "which" question asks for.
_WHICH_NOUN = re.compile(r"\b(?:which|what)\s+([a-z]+)\b")
#: Nouns that name a time, or any category of any chart ("which category", "which slice", "which bar").
_TIME_NOUNS = {"month", "months", "day", "days", "year", "years", "quarter", "quarters", "week", "weeks", "period",
               "time", "date", "season", "weekday", "one", "is", "was", "were", "are", "had", "has", "did", "of",
               "the", "point", "stage", "category", "categories", "bar", "bars", "slice", "slices", "segment",
               "segments", "item", "items", "value", "values", "column", "columns", "entry", "label", "group",
               "option", "data", "line", "lines", "section", "part", "piece", "wedge", "sector", "x"}


def asks_for_another_kind(text: str, chart: ChartResult) -> bool:
    """Whether "which <noun>" in ``text`` (normalised) asks for something other than the chart's categories, which
    are all months, weekdays or years: "which docking station was the most popular?" over months."""
    noun = _WHICH_NOUN.search(text)
    if noun is None or noun.group(1) in _TIME_NOUNS or len(noun.group(1)) < 3:
        return False
    return any(all_of_kind(kind, chart.categories) for kind in ("months", "days", "years"))


def misread_label(name: str, categories: list[str]) -> bool:
    """Whether ``name`` is a misread label: among categories that are days or months, one that is not ("Satt" among
    "Mon", "Tue", "Sun"); a fragment starting with punctuation (",hlands"); or the last words of another label, as when a
    label on two lines is split over two bars ("Plains" beside "Southport Western Plains"). A garbled label is no
    answer as printed."""
    named = [c for c in categories if _calendar_name(c)]
    if len(named) >= 2 and not _calendar_name(name):
        return True
    plain = norm(name)
    return not name[:1].isalnum() or any(
        other != name and plain and norm(other).endswith(" " + plain) for other in categories)


def _calendar_name(text: str) -> bool:
    """A month or weekday spelled in full or cut short ("Sat", "Sept", "Thurs"), nothing after."""
    word = text.strip().rstrip(".").lower()
    return len(word) >= 3 and (any(full.startswith(word) for full in CALENDAR) or word in ("sept", "tues", "thur",
                                                                                           "thurs", "weds"))


def unread_legend(chart: ChartResult) -> list[str]:
    """The legend's entries that name no series read (and no category): "Chocolate fudge" in a legend of three
    cakes over two lines read. A question over every series, or naming that one, has no answer."""
    if chart.kind == "pie" or not chart.legend:
        return []
    read = {norm(name) for name in [*chart.series, *chart.categories]}
    # A name, not a tick or a value read into the legend ("$0bn", "2.5k").
    return [entry for entry in chart.legend if re.match(r"[A-Za-z]", entry.strip()) and
            len(re.findall(r"[A-Za-z]", entry)) >= 3 and norm(entry) not in read]


def unread_series(chart: ChartResult) -> str | None:
    """A legend entry shaped like the one line read ("FY2023" beside "FY2024", "2023" beside "2024") that no line was
    read for: two lines of one colour family read as one."""
    if chart.kind != "line" or len(chart.series) != 1 or not re.search(r"\d", chart.series[0]):
        return None
    shape = re.sub(r"\d", "#", chart.series[0].strip())
    return next((t.strip() for t in chart.texts if t.strip() != chart.series[0].strip()
                 and re.sub(r"\d", "#", t.strip()) == shape and t.strip() not in chart.categories), None)


#: Words a name's initials skip ("United States of America" is USA).
_LINKS = {"of", "and", "the", "&"}


def initials(name: str) -> str:
    """The initials of a name of two or more words, upper case ("United Kingdom": "UK"); "" for one word."""
    words = [w for w in re.split(r"[\s\-]+", name.strip()) if w and w.lower() not in _LINKS]
    return "".join(w[0] for w in words).upper() if len(words) >= 2 and all(w[0].isalpha() for w in words) else ""


def typed_slip(word: str, token: str) -> bool:
    """Whether ``word`` is ``token`` typed with one slip: two letters swapped ("lenght"), or one missed, added or
    mistyped in a longer word ("admisions", "attendence")."""
    if len(word) == len(token) >= 4 and sorted(word) == sorted(token) and \
            sum(a != b for a, b in zip(word, token, strict=True)) == 2:
        return True
    return len(word) >= 5 and len(token) >= 5 and SequenceMatcher(None, word, token).ratio() >= 0.85


def _calendar_spelled(question: str, names: list[str]) -> str:
    """``question`` with a month or weekday typed with a slip written right ("feburary", "wendesday"), so that it
    names the chart's "Feb" or "Wed" as the word typed right would; a name the chart prints is left as it is."""
    printed = {norm(n) for n in names}

    def spelled(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if len(word) < 5 or word in CALENDAR or word in printed:
            return match.group(0)
        fits = [name for name in CALENDAR if len(name) >= 5 and typed_slip(word, name)]
        return fits[0] if len(fits) == 1 else match.group(0)

    return re.sub(r"[A-Za-z]+", spelled, question)


def names_as_printed(question: str, names: list[str], series: list[str] | None = None) -> str:
    """``question`` with a name it abbreviates or spells out written as the chart prints it: "the UK" over a bar
    "United Kingdom", "the United States" over a bar "US". Only capitals the question writes as such in a question
    not written all in capitals, never a common word ("IS", "OR"), and only where exactly one of the chart's names
    fits. A country the chart writes by its code is written so ("Germany" over "DE"). A legend entry of several
    words is also known by the one word only it has ("tech" for "Tech sector" beside "Public sector"), and so is a
    category among names that all share a word ("airport" for "Team Airport" beside "Team Harbour")."""
    question = _calendar_spelled(question, names)
    if sum(c.isupper() for c in question) > 0.5 * sum(c.isalpha() for c in question):
        return question  # SHOUTED: capitals say nothing about abbreviations
    printed = {n.strip() for n in names if n.strip()}
    long_names = {n: initials(n) for n in printed if initials(n)}

    def spelled(match: re.Match[str]) -> str:
        token = match.group(0).replace(".", "")
        if token in printed or token.lower() in _COMMON_WORDS:
            return match.group(0)
        fits = [n for n, short in long_names.items() if short in (token, _SAME.get(token))]
        return fits[0] if len(fits) == 1 else match.group(0)

    text = re.sub(r"\b(?:[A-Z]\.){2,4}(?!\w)|\b[A-Z]{2,4}\b", spelled, question)
    for code in sorted((n for n in printed if n.upper() in _COUNTRY_CODES and n.isupper()), key=len, reverse=True):
        # "Germany" over a bar "DE": a country the chart writes by its code.
        for country in _COUNTRY_CODES[code.upper()]:
            text = re.sub(rf"\b{re.escape(country)}\b", code, text, flags=re.I)
    legend = list(series or [])
    categories = [n for n in names if n not in legend]
    if len(legend) > 1:
        text = _by_one_word(text, legend, categories)
    if len(categories) >= 2 and all(len(norm(c).split()) >= 2 for c in categories):
        # "Team Airport", "Team Harbour": "airport" alone names one of them; "the tesla" is "Tesla Model 3" beside
        # "Honda Civic" and "BMW 3 Series".
        text = _by_one_word(text, categories, legend)
    # The longest first: "United States of America" is USA before "United States" in it can be US.
    for short in sorted((n for n in printed if re.fullmatch(r"[A-Z]{2,4}", n)), key=len, reverse=True):
        if any(initials(other) == short for other in printed if other != short):
            continue  # "NA" beside "North America": the chart itself names both
        spans = {run for run in _capitalised_runs(text) if initials(run) == short}
        if len(spans) == 1:
            text = re.sub(rf"\b{re.escape(spans.pop())}\b", short, text)
    return text


def _by_one_word(text: str, series: list[str], others: list[str]) -> str:
    """``text`` with a word that only one of ``series`` has ("tech" of "Tech sector" beside "Public sector"), and
    no other name of the chart, written as that name whole, where the text does not name it whole."""
    lowered = norm(text)
    for name in series:
        words = norm(name).split()
        if len(words) < 2 or re.search(rf"\b{re.escape(norm(name))}\b", lowered):
            continue
        rest = " ".join(norm(n) for n in [*series, *others] if n != name).split()
        # A word of its own, or its quarter ("q2" of "Q2 2024" beside "Q1 2024"…).
        own = [w for w in words if (len(w) >= 3 and w.isalpha() or re.fullmatch(r"[qh][1-4]", w)) and w not in rest
               and w not in _COMMON_WORDS and w not in _AGGREGATES
               and not any(form in rest for form in spellings(w))]  # "star" of "1 star" beside "2 stars"
        # "europe" beside "Eastern Europe" may be all of Europe, of which the chart shows a part.
        own = [w for w in own if not all(other in _PART_OF for other in words if other != w)]
        hit = next((w for w in own if re.search(rf"\b{w}\b", text, re.I)), None)
        if hit is not None:
            text = re.sub(rf"\b{hit}\b", name, text, count=1, flags=re.I)
    return text


def _capitalised_runs(text: str) -> list[str]:
    """Every run of two or more capitalised words in ``text`` ("of", "and", "the" may link them), and each of its
    contiguous parts that starts and ends with a capitalised word: "Did North America" gives "North America" too."""
    runs = []
    for match in re.finditer(r"\b[A-Z][a-z]+(?:\s+(?:(?:of|and|the)\s+)?[A-Z][a-z]+)+\b", text):
        words = match.group(0).split()
        for start in range(len(words)):
            for end in range(start + 2, len(words) + 1):
                part = words[start:end]
                if part[0][0].isupper() and part[-1][0].isupper():
                    runs.append(" ".join(part))
    return runs


#: Countries charts write by their ISO code ("DE", "FR"), with the names people give them.
_COUNTRY_CODES: dict[str, tuple[str, ...]] = {
    "AR": ("Argentina",), "AT": ("Austria",), "AU": ("Australia",), "BE": ("Belgium",), "BR": ("Brazil",),
    "CA": ("Canada",), "CH": ("Switzerland",), "CL": ("Chile",), "CN": ("China",), "CZ": ("Czechia", "Czech Republic"),
    "DE": ("Germany",), "DK": ("Denmark",), "EG": ("Egypt",), "ES": ("Spain",), "FI": ("Finland",),
    "FR": ("France",), "GB": ("Great Britain", "Britain"), "GR": ("Greece",), "HU": ("Hungary",),
    "ID": ("Indonesia",), "IE": ("Ireland",), "IL": ("Israel",), "IN": ("India",), "IT": ("Italy",),
    "JP": ("Japan",), "KR": ("South Korea",), "MX": ("Mexico",), "NG": ("Nigeria",),
    "NL": ("Netherlands", "Holland"), "NO": ("Norway",), "NZ": ("New Zealand",), "PL": ("Poland",),
    "PT": ("Portugal",), "RO": ("Romania",), "RU": ("Russia",), "SA": ("Saudi Arabia",), "SE": ("Sweden",),
    "SG": ("Singapore",), "TR": ("Turkey", "Türkiye"), "UA": ("Ukraine",), "UK": ("United Kingdom", "Britain"),
    "US": ("United States",), "USA": ("United States of America", "United States"), "UAE": ("United Arab Emirates",),
    "ZA": ("South Africa",),
}

#: Words that ask about the whole chart even where one name holds them ("the total" beside a bar "Total sales").
_AGGREGATES = {"total", "totals", "average", "mean", "median", "overall", "other", "others", "combined", "sum"}

#: Periods numbered in a name ("Year 11", "Wk3"), and how they are written short.
_SHORT_PERIODS = {"yr": "year", "wk": "week", "qtr": "quarter", "mth": "month"}
_NUMBERED = re.compile(r"(year|yr|week|wk|quarter|qtr|month|mth)\s*(\d{1,3})")

#: Words that make a name a part of what the rest of it names: "Eastern Europe", "Greater London".
_PART_OF = {"north", "south", "east", "west", "northern", "southern", "eastern", "western", "central", "upper", "lower",
            "inner", "outer", "greater", "mid", "middle", "northeast", "northwest", "southeast", "southwest"}

#: Abbreviations written two ways: "USA" is the bar "United States" too.
_SAME = {"USA": "US"}

#: Capitalised for emphasis, never an abbreviation of a chart's name.
_COMMON_WORDS = {"is", "or", "it", "in", "on", "at", "to", "of", "by", "as", "an", "if", "do", "no", "so", "up",
                 "we", "me", "my", "be", "am", "are", "and", "the", "for", "not", "was", "did", "has", "had", "yes",
                 "how", "who", "why", "all", "any", "its", "our", "you", "what", "when", "than", "that", "this",
                 "more", "less", "most", "over", "with", "from", "into", "only", "each", "ever", "both", "same"}
