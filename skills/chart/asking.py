"""The wordings the chart skill reads in a question: which category is asked for ("which", "what game did"), an
extreme ("the highest"), a rank ("the 2nd most"), a difference ("how many minutes longer … than"), a change between
two points ("how much did it grow from May to June") and a count of the chart's own marks ("how many bars").
"""

from __future__ import annotations

import re

from skills.chart.directions import FALL, GAIN, RISE

HIGH_WORDS = ("highest|largest|biggest|most|maximum|max|greatest|tallest|longest|peak|warmest|hottest|busiest|"
               "wettest|heaviest|fastest")
LOW_WORDS = "lowest|smallest|least|minimum|min|fewest|shortest|coldest|coolest|cheapest|driest|lightest|slowest|quietest"
HIGH = re.compile(rf"\b({HIGH_WORDS})\b", re.I)
LOW = re.compile(rf"\b({LOW_WORDS})\b", re.I)
#: A bare superlative and a noun: "smallest country on this chart?"
SUPERLATIVE_FIRST = re.compile(rf"(?:the )?(?:{HIGH_WORDS}|{LOW_WORDS}) (?!value|number|amount)(?P<noun>\w+)")
#: A rank other than the first: "second lowest", "3rd most", "runner-up".
RANK = re.compile(r"\b(?:second|third|fourth|fifth|\d+(?:st|nd|rd|th)|runner[- ]up|next)\b")
RANKS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
#: A name asked for by its rank, without "which": "2nd most common way to commute?", "reason with the 3rd highest
#: share?", "the country ranked 4th by sessions".
BY_RANK = re.compile(rf"\b(?:second|third|fourth|fifth|[2-5](?:nd|rd|th))[- ](?:{HIGH_WORDS}|{LOW_WORDS})\b|"
                      r"\branked (?:#|no\.? |number )?(?:second|third|fourth|fifth|[2-5](?:nd|rd|th))\b")
#: "Which …" / "What's the biggest category?" / "When was it lowest?": the question asks for a category, not a value.
#: "what game did i play the most": "what" and a noun other than a value's ("what percentage did …") is "which".
ASKS_WHICH = re.compile(r"\bwhich\b|\bwhat (?!(?:value|number|amount|percent|percentage|share|total|score|figure|"
                         r"level|price|cost|rate|proportion|fraction|portion|time|revenue|sale|profit|income|spend|"
                         r"spending|temperature|rainfall|distance|weight|height|speed|population|growth|attendance|"
                         r"balance|budget|usage|volume|count|size|length|duration|salary|wage|return|loss|gain)s?\b|(?:it|they|we|i|you|he|she|"
                         r"this|that|else)\b)[a-z]+ (?:did|do|does|was|were|had|has|got)\b|"
                         r"\bwhen (?:was|were|is|are|did|does|do)\b|"
                         r"\bwhat(?:s| s| is| was| are| were)?(?: the)?(?: \w+)? (?:category|categories|slice|"
                         r"bar|month|day|year|item|country|city|product|group|segment|region|team|brand|company|"
                         r"sector|department|quarter|week|person|fruit|type|kind)\b(?! s\b)")  # not "the west region's"
#: "What is the difference between …", "How much bigger is France than Poland?", "By how much …"
#: "how many minutes longer", "how many more points": a unit may come between "how many" and the comparison.
UNIT_BETWEEN = (r"(?:(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|days?|weeks?|months?|years?|points?|pts|percent|"
                 r"dollars?|euros?|pounds?|kg|kilos?|grams?|km|miles?|metres?|meters?|cm|mm|degrees?|litres?|liters?|"
                 r"calories|kcal|steps|votes|people|units) )?")
DIFFERENCE = re.compile(rf"\bdiff(?:erence)?\b|\bhow (?:much|many) {UNIT_BETWEEN}(?:more|less|fewer|bigger|smaller|"
                         r"higher|lower|larger|greater|taller|shorter|longer|extra)\b|\bby how (?:much|many)\b|"
                         r"\bgap between\b|\bcompared (?:to|with)\b")
#: "how much more … A … than B": which way the question says A differs from B.
THAN_WAY = re.compile(rf"\bhow (?:much|many) {UNIT_BETWEEN}(?:(?P<more>more|bigger|higher|larger|greater|taller|"
                       r"longer|extra)|less|fewer|smaller|lower|shorter)\b.*\bthan\b")
#: "What's the value of the tallest bar?", "how high was the peak?": a value, not a category's name.
ASKS_VALUE = re.compile(r"\b(?:value|amount|figure|level|reading|score|number)\b|^how (?:much|many|high|low|big|large)\b")
#: "How many bars are there?", "how many data points are plotted": the number of marks, not "how many points
#: higher was English than Maths".
HOW_MANY_MARKS = re.compile(r"\bhow many (?:data )?(?:categories|bars|slices|points|groups|items)(?: (?:are|is))?"
                             r"(?: (?:there|shown|plotted|displayed|drawn))?(?: (?:in|on) (?:the|this) (?:chart|graph|"
                             r"plot|figure|pie))?$")
#: "How much did users increase from Jan to Aug?": the later value less the earlier, in the direction the verb says.
CHANGE_FROM_TO = re.compile(rf"\bhow (?:much|many)\b(?: \w+){{0,6}}? (?P<verb>{RISE}|{GAIN}|{FALL})\b.*?\b(?:from|between)\b")
#: "How many fruits are compared?", "How many countries are shown?": the number of categories the chart names.
HOW_MANY = re.compile(r"\bhow many\b")
HOW_MANY_SHOWN = re.compile(r"\bhow many (?!people|persons|users|students|customers|visitors|votes|respondents|"
                             r"units|times)(?P<noun>[a-z]+s) (?:are |were )?(?:compared|shown|listed|included|represented|"
                             r"displayed|plotted|in (?:the|this) (?:chart|graph|plot)|on (?:the|this) (?:chart|graph))\b")


def false_premise(text: str, a: float | None, b: float | None) -> bool:
    """Whether "how much longer is A than B" (``a`` named first) has A the shorter: the question's premise is not
    the chart's, and no difference answers it."""
    way = THAN_WAY.search(text)
    return way is not None and a is not None and b is not None and (a - b) * (1 if way.group("more") else -1) < 0
