"""What the value axis says: "what does the y axis say", "whats the y-axis label", "what is the vertical axis
titled". The answer is the axis title as printed ("Commute time (minutes)"), read up the side of a vertical value
axis; a question about its unit, its range or a value on it is not this question.
"""

from __future__ import annotations

import re

from skills.chart.names import mentioned, norm
from vision_tools.charts import ChartResult

_VALUE_AXIS = r"(?:y|vertical|left)[- ]?axis"
_ASKS = re.compile(rf"^\W*(?:what|wat|whats|what's)\b.*\b{_VALUE_AXIS}(?:'s)?\s+(?:say|says|read|reads|label|title|"
                   r"name|labell?ed|titled|called|show|shows|measure|measures)\b|"
                   rf"^\W*(?:what|wat|whats|what's)\b.*\b(?:label|title|name)\s+(?:of|on)\s+(?:the\s+)?{_VALUE_AXIS}\b|"
                   rf"^\W*(?:what|wat)\s+(?:does|do|is)\s+(?:the\s+)?{_VALUE_AXIS}\s+(?:say|read|show|measure|labell?ed|"
                   r"titled|called)\b", re.I)
#: Words that ask something else of the axis: its unit, its range, a value on it.
_OTHER = re.compile(r"\b(?:unit|units|scale|range|max\w*|min\w*|highest|lowest|top|bottom|start|starts|end|ends|"
                    r"value|values|number|tick|ticks|interval|step)\b", re.I)


def axis_title_answer(chart: ChartResult, question: str) -> str | None:
    """The vertical value axis's title when ``question`` asks what that axis says, else None."""
    if not _ASKS.search(question) or _OTHER.search(question) or chart.kind not in ("bar", "line", "grouped_bar"):
        return None
    if mentioned([*chart.categories, *chart.series], norm(question)):
        return None  # "what does the y axis show for March": a value, not the title
    return chart.value_title.strip() or None
