"""Chart parsing: a bar (vertical, horizontal, grouped), line or pie chart's data table recovered from its pixels."""

from vision_tools.charts.detect import ChartLikeness, chart_likeness
from vision_tools.charts.parse import parse_chart
from vision_tools.charts.result import AxisFit, ChartMark, ChartResult, match_name, normalise_name

__all__ = ["AxisFit", "ChartLikeness", "ChartMark", "ChartResult", "chart_likeness", "match_name", "normalise_name",
           "parse_chart"]
