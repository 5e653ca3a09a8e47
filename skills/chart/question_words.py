"""The words of a question about a chart that the chart does not account for.

A question names what it asks about: "how many parcels does Team North deliver?", "which route carried the most
cars?", "the average weekend ridership on line 3". A look-up in the chart's table answers it only when the chart
prints that thing somewhere (title, axis titles, legend, labels, notes). Rules for one wording at a time ("how many
X", "the most X", "X vs Y") were each outrun by the next user's wording, so this asks it of every word instead.

A word is accounted for when the chart prints it (the word, a form of it: "delivered" for "Deliveries", or with one
slip of typing: "attendence"), when it is a unit whose sign the chart prints ("dollars" over "$"), or when it is one
of the words any question about any chart uses: function words, the asking ("hey, can u tell me"), operations on
the table ("total", "difference"), extremes and comparisons, times and the chart's own parts ("bar", "axis"). Any
other word is a thing the chart does not show, and the chart skill gives no answer, naming the word.
"""

from __future__ import annotations

import os
import re

from skills.chart.measure import printed_word, unit_printed
from skills.chart.mismatch import SPEED_MEASURE
from skills.chart.names import CALENDAR, CATEGORY_NOUNS, all_of_kind, norm, spellings, typed_slip
from skills.question_text import ABBREVIATED
from vision_tools.charts import ChartResult


def _vocabulary(words: str) -> list[str]:
    """The words of a list written as running text (easier to read and to extend than a list of strings)."""
    return words.split()


_FUNCTION = _vocabulary("""
a an the this that these those it its it's they them their there here what whats which who whom whose when where
why how is are was were be been being am do does did done doing have has had having will would shall should can
could may might must of in on at to for from by with within without about into onto over under between among
across along through throughout during before after since until till than then as and or but nor not no yes if
so too very also just only any some all each every both either neither other another same such own one ones i me
my mine we us our you your yours u ur he she him her his hers much many more most less least few fewer lot lots
whether vs versus per via up down out off again ever still yet already else instead always""")
_ASKING = _vocabulary("""
true false correct incorrect wrong
hi hey hello please pls plz thanks thank ok okay tell know need want wondering curious quick question help find
figure out look looking check say says said according based give given show shows shown showing see seen read
display displays displayed depict depicted depicts plotted plot plots chart charts graph graphs diagram image
picture pic data dataset table visual visualisation visualization roughly approximately approx around exactly
precisely actually really guess estimate estimated answer number numbers go goes going gonna get gets got like
looks seem seems wat wut whta hw abt thx ty tho btw lol ppl happen happens happened happend occur occurred
people persons person someone anyone everyone folks individuals wich
whcih teh hte i'm i've i'd we're it's that's don't doesn't didn't isn't wasn't aren't weren't name title tittle
vertical horizontal linear logarithmic log scale scales spaced evenly cover covers covered middle centre center
left right list slide split measure measures compare compares round rounded decimal decimals digits place places""")
_TABLE = _vocabulary("""
value values amount amounts level levels reading readings total totals sum combined altogether together overall
average averages avg mean median difference differences diff gap change changes changed percent percentage
percentages share shares proportion portion fraction chunk chunks part parts rate figure figures count counted counts recorded record
records reported registered measured listed included represented marked labelled labeled printed written""")
_RANKING = _vocabulary("""
highest lowest largest smallest biggest most least maximum minimum max min greatest tallest shortest longest
fullest emptiest common commonest popular way ways peak peaked peaks top bottom higher lower bigger smaller
larger greater taller shorter longer rank ranked ranking first second third fourth fifth last next previous
above below exceed exceeded exceeds exceeding beat beats beaten compared compare comparison relative equal
equals same similar different difference more less fewer under over ahead behind fewest overtake overtakes
overtook overtaken outnumber outnumbers outnumbered surpass surpassed pass passed passes crack cracked topped
closest nearest farthest furthest double twice half times triple thrice quadruple cheaper dearer pricier""")
_CHANGE = _vocabulary("""
increase increased increases increasing decrease decreased decreases decreasing rise rises rose risen rising
fall falls fell fallen falling grow grows grew grown growing drop drops dropped dropping climb climbed climbing
decline declined declining jump jumped gain gained stay stayed remain remained constant steady steadily trend
trends trending overall direction upward downward upwards downwards go went gone hit reach reached reaching
choose chooses chose chosen choosing pick picks picked prefer prefers preferred favourite favorite
start started end ended begin began lose loses lost losing cut cuts raise raised raises raising shrink shrank
shrunk expand expanded add adds added adding plus minus subtract subtracted divide divided multiply multiplied
work works worked working live lives lived living come comes came coming make makes made making use uses used
using bring brings bringing brought take takes took taking keep kept see sees saw seeing finish finished
finishing manage managed happen back apart anywhere ever every single course along because due besides except
excluding including counting point put puts putting absolute terms""")
#: How much, not of what: "more than 2 million", "below zero".
_SCALE = _vocabulary("""
zero big bigger small large high low tall long short size sized hundred hundreds thousand thousands million
millions billion billions trillion dozen dozens half quarter two three four five six seven eight nine ten eleven
twelve old older oldest olds young younger youngest youth aged age ages yoy""")
_TIMES = _vocabulary("""
year years month months week weeks day days quarter quarters period periods time date dates season seasons
annual annually yearly monthly weekly daily decade decades ago recent recently latest earliest later earlier
whole entire full term""")
_PARTS = _vocabulary("""
grouped stacked clustered scatter area histogram chart-type bar bars column columns line lines slice slices segment
segments pie donut doughnut wedge legend axis axes label labels category categories series mark marks tick ticks
title key group groups item items entry entries row rows colour color colours colors""")
#: Units as users shorten them, and the word a chart prints for each.
#: When in a time ("late 2023", "early March"), said of any chart over time; said of anything else ("returned late",
#: "early bookings") a status the chart must print.
_WHEN_IN = frozenset(["late", "early"])
_ORDINAL_TIMES = re.compile(r"^(?:q[1-4]|h[12]|fy\d*|\d+(?:st|nd|rd|th|s|k|m|bn)?)$")
#: Every word above: said of any chart, so never the thing asked about.
_ANY_CHART = frozenset(_FUNCTION + _ASKING + _TABLE + _RANKING + _CHANGE + _TIMES + _PARTS + _SCALE + list(CALENDAR))
#: Words that say which way or how much of a measure, answered only over that measure: "the cheapest country" over
#: prices, "the hottest month" over temperatures, "how much did they spend" over money.
_MONEY = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|cents?|pence|price|prices|cost|costs|fare|"
                    r"fares|fee|fees|spend\w*|spent|revenue|income|salar\w*|wages?|pay|paid|budget|bill|bills|"
                    r"earnings?|sales|profit|turnover|expenditure|receipts)\b")
_TEMPERATURE = re.compile(r"°|\btemp\w*|\bdegrees?\b")
_BY_MEASURE: dict[str, re.Pattern[str]] = {
    **dict.fromkeys(_vocabulary("""
cheap cheaper cheapest expensive pricey pricier priciest costly afford affordable spend spends spent spending pay pays
paid paying cost costs costing earn earns earned earning money cash charge charged expense expenses dollars euros cents
pounds bill bills"""), _MONEY),
    **dict.fromkeys(_vocabulary("hot hotter hottest warm warmer warmest cold colder coldest cool cooler coolest "
                                 "freezing frost frosty boiling"),
                    _TEMPERATURE),
    **dict.fromkeys(_vocabulary("fast faster fastest quick quicker quickest slow slower slowest"),
                    re.compile(SPEED_MEASURE.pattern + r"|\b(?:time|times|minutes?|mins?|hours?|seconds?|days?)\b")),
    **dict.fromkeys(_vocabulary("far farther further furthest farthest drive drives drove driven driving walk walks "
                                 "walked cycle cycled ride rides rode run ran"),
                    re.compile(r"\b(?:km|kilomet\w*|mi|miles?|metres?|meters?|distance\w*)\b")),
    # "how many passengers travelled": a distance, or the people carried.
    **dict.fromkeys(_vocabulary("travel travels travelled traveled travelling traveling"),
                    re.compile(r"\b(?:km|kilomet\w*|mi|miles?|metres?|meters?|distance\w*|passengers?|riders?|"
                               r"travell?ers?|trips?|journeys?)\b")),
    # "which variety produced the most", "how much did the field yield": a harvest or an output, printed.
    **dict.fromkeys(_vocabulary("produce produces produced producing yield yields yielded yielding"),
                    re.compile(r"\b(?:harvest\w*|yield\w*|produc\w*|output|crops?)\b")),
    **dict.fromkeys(_vocabulary("answered asked surveyed polled responded respond voted survey surveys poll polls questionnaire"),
                    re.compile(r"\brespond\w*|\bsurvey\w*|\bpoll\w*|\bvot\w*|\bn\s*=")),
    **dict.fromkeys(_vocabulary("wet wetter wettest dry drier driest"),
                    re.compile(r"\brain\w*|\bprecipitation|\bmm\b")),
    **dict.fromkeys(_vocabulary("busy busier busiest quiet quieter quietest popular popularity"), re.compile(r".")),
    **dict.fromkeys(_vocabulary("sell sells sold selling seller sellers"),
                    re.compile(r"\bsales?\b|\bsold\b|\bunits?\b|\brevenue\b")),
    **dict.fromkeys(_vocabulary("borrow borrows borrowed borrowing"), re.compile(r"\bloans?\b|\bborrow")),
    **dict.fromkeys(_vocabulary("score scores scored scoring"), re.compile(r"\bgoals?\b|\bpoints?\b|\bscores?\b")),
    **dict.fromkeys(_vocabulary("emit emits emitted"), re.compile(r"\bemission|\bco2\b|\bcarbon")),
}
#: Units of two letters, which are words of the question like any other ("how many mm of rain" over rainy days);
#: other words of two letters are not looked up.
_SHORT_UNITS = frozenset(_vocabulary("mm cm km kg mg ml lb oz gb mb tb kw mw hp"))
_WORD = re.compile(r"[a-z][a-z'’-]*[a-z]|[a-z]")
#: Nouns for people by what they do ("stylist", "driver", "employee"): "which stylist did the most bookings" over a
#: pie of services asks for a person the chart does not show, unless it prints the word ("Bookings by stylist").
_PERSON_NOUN = re.compile(r"(?:ist|er|or|ian|ee)s?$|^(?:staff|person|people|agent|rep|worker|member)s?$")


def unexplained_words(chart: ChartResult, question: str) -> list[str]:
    """The words of ``question`` that name something ``chart`` does not print (see the module), in question order."""
    printed = "\n".join([chart.title, chart.value_title, *chart.texts, *chart.series, *chart.legend,
                        *chart.categories])
    text = norm(printed)
    signs = printed.lower()  # "€", "$" and "°" kept: ``norm`` drops them
    initials = _initials(printed)
    tokens = set(_words(printed))
    names = {s for name in [*chart.categories, *chart.series, *chart.legend] for s in spellings(norm(name))}
    # A kind of thing ("country", "team") may name the categories unless they are times: "which docking station"
    # over months names none (``names.asks_for_another_kind`` says so of "which").
    times = any(all_of_kind(kind, chart.categories) for kind in ("months", "days", "years"))
    kinds = len(chart.series) > 1 or not times
    found: list[str] = []
    # "which car is the slowest?": the noun after "which" names the kind of the categories (times are checked below).
    # ("What revenue did the gym make?" names a measure, not a kind: only "which" counts.)
    kind_asked = {m.group(1) for m in re.finditer(r"\bwhich\s+([a-z]+)\b", question.lower())} if kinds else set()
    asked = re.sub(r"\bpercentage points?\b|\b[xy][- ]axis\b", " ", question.lower())
    words = _words(asked)
    for i, word in enumerate(words):
        if (len(word) < 3 and word not in _SHORT_UNITS) or word in _ANY_CHART or _ORDINAL_TIMES.match(word) or word in found:
            continue
        if word in _WHEN_IN and _a_time([w for w in words[i + 1:i + 4] if w not in ("in", "the", "of")][:1]):
            continue  # "late 2023", "early in the year": a time; "came back late", "early bookings": a status
        if any(word in spellings(c) for c in CALENDAR) or word in names or unit_printed(word, signs):
            continue
        if (full := ABBREVIATED.get(word)) is not None and printed_word(full, text):
            continue  # "hrs" over "Battery life (hours)"
        if word in initials or (word.endswith("s") and word[:-1] in initials):
            continue  # "MAU" for "monthly active users", "EVs" for "electric vehicles"
        if (measure := _BY_MEASURE.get(word)) is not None and measure.search(signs):
            continue
        if word in kind_asked and not _PERSON_NOUN.search(word) or \
                (kinds and any(s in CATEGORY_NOUNS for s in spellings(word))):
            continue  # "which country", "how many departments": the kind of the categories, checked elsewhere
        if printed_word(word, text) or any(_same_word(word, token) for token in tokens) or _noun_of_printed(word, text):
            continue
        found.append(word)
    return found


def _noun_of_printed(word: str, text: str) -> bool:
    """Whether ``word`` is the noun "-age" makes of a verb ``text`` prints: "usage" over "Data used", "mileage" over
    "Miles driven"."""
    if not word.endswith("age") or len(word) < 5:
        return False
    base = word[:-3]
    endings = "e|es|ed|ing" + ("|s" if len(base) >= 4 else "")
    return re.search(rf"\b{re.escape(base)}(?:{endings})\b", text) is not None


def _a_time(words: list[str]) -> bool:
    """Whether ``words`` (none or one) is a time: a month, a year, a quarter, "year", "season"."""
    return any(w in _TIMES or _ORDINAL_TIMES.match(w) or any(w in spellings(c) for c in CALENDAR) for w in words)


def _words(text: str) -> list[str]:
    """Lower-case words, a possessive's "'s" dropped ("madrid's" is Madrid), a hyphenated word in its parts."""
    words: list[str] = []
    for word in _WORD.findall(text.lower().replace("’", "'")):
        word = re.sub(r"'s?$", "", word)
        words.extend(part for part in word.split("-") if part)  # "second-lowest": each part on its own
    return words


def _initials(text: str) -> set[str]:
    """The initials of every run of two to four words printed: "mau" of "Monthly active users"."""
    found: set[str] = set()
    for line in text.lower().split("\n"):
        words = re.findall(r"[a-z]+", line)
        for size in (2, 3, 4):
            found.update("".join(w[0] for w in words[i:i + size]) for i in range(len(words) - size + 1))
    return found


#: Past forms that share no stem with the word a chart prints: "caught" over "catch", "sold" over "sales".
_IRREGULAR = {"caught": "catch", "sold": "sales", "bought": "buy", "spent": "spend", "spending": "spend",
              "won": "wins", "lost": "losses", "ran": "run", "flew": "flights", "drove": "drive", "ate": "eat",
              "taught": "teach", "built": "build", "paid": "pay", "grew": "growth", "fell": "fall"}


def _same_word(word: str, token: str) -> bool:
    """A form of the same word ("visited" for "Visitors", "sale" for "Sales"), or the word typed with a slip
    ("attendence" for "Attendance")."""
    if word == token or word in spellings(token) or _IRREGULAR.get(word) == token:
        return True
    shorter = min(len(word), len(token))
    common = len(os.path.commonprefix([word, token]))
    if common >= min(5, shorter) and common >= shorter - 3 and shorter >= 4:
        return True
    return typed_slip(word, token)

