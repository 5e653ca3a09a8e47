"""Chart skill: recover the chart's data table from its pixels, then compute the answer from the table.

The tools expert answers the questions a table settles — a value (of a category, in a series), a share of a pie, the
highest or lowest category, a difference, a total, a count of categories — and declines the rest plainly. A
multiple-choice question is answered with the one option letter the table supports (``choices.py``), with a
confidence from the evidence, or not at all, with what is missing. A neural expert gets the table (as Markdown) and
the annotated chart to reason with.

``image_prior`` is a quick look (no OCR) at whether an image is a chart at all: the keyword policy uses it to send a
multiple-choice question about a chart here even when its words do not say "chart".
"""

from __future__ import annotations

import re
from dataclasses import replace

from PIL import Image

from skills.answer_form import AnswerForm, answer_form
from skills.base import SkillContext, SkillResult
from skills.chart.asking import (
    ASKS_VALUE,
    ASKS_WHICH,
    BY_RANK,
    CHANGE_FROM_TO,
    DIFFERENCE,
    HIGH,
    HOW_MANY,
    HOW_MANY_MARKS,
    HOW_MANY_SHOWN,
    LOW,
    RANK,
    RANKS,
    SUPERLATIVE_FIRST,
    false_premise,
)
from skills.chart.axis_titles import axis_title_answer
from skills.chart.category_groups import asks_who, spell_out_day_groups, spell_out_spans, within_named
from skills.chart.changes import which_changed
from skills.chart.choices import MIN_CONFIDENCE, decide
from skills.chart.comparisons import asks_for_a_series, compare_values, series_at, summed_series
from skills.chart.confidence import (
    clear_extreme,
    contested,
    count_confidence,
    extreme_confidence,
    ranked,
    values_confidence,
)
from skills.chart.directions import is_rise
from skills.chart.limits import VOIDS_VALUES, limits_seen
from skills.chart.measure import (
    asks_a_change,
    counted_by_the_values,
    unprinted_extreme_noun,
    unprinted_measure,
)
from skills.chart.mismatch import asks_another_period, asks_another_question, unprinted_numbers
from skills.chart.named_options import by_lookup
from skills.chart.names import (
    asks_for_another_kind,
    mentioned,
    misread_label,
    names_as_printed,
    names_some,
    names_the_categories,
    norm,
    unread_legend,
    unread_series,
)
from skills.chart.precision import (
    as_printed,
    formatted,
    in_printed_scale,
    in_tick_style,
    read_value,
    unread_labels,
    value_decimals,
)
from skills.chart.question_words import unexplained_words
from skills.chart.reasons import why_no_answer
from skills.chart.stacks import LEVEL_STACKS, STACKED_KINDS, names_alike, reach_view, stacked_view
from skills.chart.steps import step_answer
from skills.chart.thresholds import against_a_number, count_against, first_past
from skills.common import conclude
from skills.question_text import task_text
from vision_tools.charts import ChartResult, chart_likeness, parse_chart

#: What is missing when no chart was found: said about the image, in a user's words.
NO_CHART = "no chart with readable values was found in the image"
_KIND_FOR_LEVEL2 = {"bar": None, "line": "line", "pie": "pie"}


def image_prior(image: Image.Image) -> tuple[float, str]:
    """How much ``image`` looks like a chart (0-1) and why, from its pixels alone (milliseconds, no OCR)."""
    look = chart_likeness(image)
    return look.score, look.reason


def run(ctx: SkillContext) -> SkillResult:
    form = answer_form(ctx.question)
    # A multiple-choice question may be about any kind of chart: the parser detects the kind itself.
    kind = None if form.kind == "choice" else _KIND_FOR_LEVEL2.get(ctx.level2.id)
    # The sub-skill's kind came from the question's words ("increase" is a line chart's, and so is "Line 3" of a
    # bar chart of tram lines): the pixels decide, and the words only where the pixels find no chart.
    chart = ctx.trace.call("chart.parse_chart", parse_chart, ctx.image, kind=None)
    if not chart.found and kind is not None:
        chart = ctx.trace.call("chart.parse_chart", parse_chart, ctx.image, kind=kind)
    # "the UK" over a bar "United Kingdom": the question in the chart's own names.
    ctx = replace(ctx, question=names_as_printed(ctx.question, [*chart.categories, *chart.series], chart.series))
    if chart.found and (unread := unread_legend(chart)) and len(mentioned(chart.series, norm(ctx.question))) != 1:
        # A series the legend names was not read: an extreme, a total or a choice over the series may be it.
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = (f"the legend names {', '.join(unread)}, whose marks the tools did not read, so only a "
                          "question about one series that was read can be answered")
        return result
    chart = stacked_view(chart, ctx.question, choice=form.kind == "choice")
    if chart.found and (other := unread_series(chart)) is not None:
        # Two lines read as one zig-zag between them: no value of either can be trusted.
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = (f"the chart names a second line, {other}, beside {chart.series[0]}, and the tools read "
                          "only one line: its values may be the two lines mixed")
        return result
    if chart.found and chart.axis is not None and chart.axis.twin:
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = ("the chart has two value axes, left and right, on different scales, and the tools cannot "
                          "tell which one each mark is read against")
        return result
    if chart.found and (doubled := chart.label_on_several_marks):
        # A donut's ring read as extra slices, or one label taken for two slices: no slice's share can be trusted.
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = (f"one label ({doubled}) was matched to several slices of the pie, so its slices were not "
                          "told apart reliably")
        return result
    if form.kind == "choice" and form.options:
        return _choose(ctx, chart, form)
    if chart.found and (clash := chart.slice_against_its_percentage) is not None and clash.measured is not None:
        # Which of the two readings is the share asked for (the data printed, or the slice drawn) is not known.
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = (f"the percentage printed on the {clash.category} slice ({clash.printed:g}%) disagrees with "
                          f"the slice's size ({clash.measured:.0f}% of the pie), so no share of this pie is read "
                          "reliably")
        return result
    if not chart.found:
        result = conclude(ctx, [chart], None, note=f"The chart parser found no chart to read ({chart.reason}).")
        # The parser's reason stays in the observation: on a photograph of a sign it is jargon to a user.
        result.missing = LEVEL_STACKS if chart.reason == LEVEL_STACKS else NO_CHART
        return result
    if chart.axis is not None and not chart.axis.stepped:
        # Numbers printed down a price list taken for an axis's ticks: the "chart" is a board of text.
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = NO_CHART
        return result
    if (axis_title := axis_title_answer(chart, ctx.question)) is not None:
        # "What does the y axis say?": the axis title as printed, not a value of the table.
        return conclude(ctx, [chart], axis_title, note=f"The value axis is titled {axis_title!r}.", confidence=0.9)
    void = next((limit for limit in limits_seen(ctx.question, {}, chart, None) if limit.kind in VOIDS_VALUES), None)
    if void is not None:
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = void.why
        return result
    answer, confidence = answer_from_table(chart, ctx.question)
    if chart.kind in STACKED_KINDS and not names_alike(answer, answer_from_table(reach_view(chart), ctx.question)[0]):
        answer, confidence = None, None  # the longest segment is not the one reaching highest: two answers
    # "how many parcels does Team North deliver?" over route lengths: the chart shows no parcels.
    unexplained = [] if getattr(ctx.expert, "neural", False) else unexplained_words(chart, ctx.question)
    if unexplained:
        answer, confidence = None, None
    if answer in chart.categories and misread_label(answer, chart.categories):
        answer, confidence = None, None  # "Satt" among "Mon", "Tue", "Sun": a misread label is no answer as printed
    used = mentioned(chart.categories, norm(ctx.question)) or chart.categories
    if answer is not None and (clash := contested(chart, used)) is not None:
        result = conclude(ctx, [chart], None, note="Data table:\n" + chart.markdown())
        result.missing = (f"the number printed for {clash.category} ({clash.printed:g}) disagrees with its mark "
                          f"measured against the axis ({clash.measured:.4g}): one of the two readings is wrong")
        return result
    result = conclude(ctx, [chart], answer, note="Data table:\n" + chart.markdown(), confidence=confidence)
    neural = getattr(ctx.expert, "neural", False)
    if result.answer is None and (why := why_no_answer(chart, ctx.question, unexplained, neural)) is not None:
        result.missing = why
    return result


def _choose(ctx: SkillContext, chart: ChartResult, form: AnswerForm) -> SkillResult:
    """A multiple-choice question: the letter the table supports, with its confidence, or what is missing."""
    decision = decide(chart, ctx.question, form)
    if decision.letter is None and chart.found:
        decision = by_lookup(chart, task_text(ctx.question)[0] or ctx.question, form.options, decision,
                             answer_from_table, lambda name: misread_label(name, chart.categories))
    note = ("Data table:\n" + chart.markdown() if chart.found else "") + "\nOptions checked against the table:\n" \
        + decision.explain()
    letter = decision.letter if decision.confidence >= MIN_CONFIDENCE else None
    missing = decision.missing
    if decision.letter is None and not chart.found and not chart_likeness(ctx.image).chart:
        # Tried as a last resort on a graphic that does not look like a chart: the parser's reason (kept in the
        # observation) would be chart jargon about a sign or a diagram.
        missing = NO_CHART
    if decision.letter is not None and letter is None:
        missing = (f"the evidence for option {decision.letter} is too weak (confidence {decision.confidence:.2f}, "
                   f"below {MIN_CONFIDENCE}) to answer")
    result = conclude(ctx, [chart], letter, note=note)
    if getattr(ctx.expert, "neural", False):
        return result
    result.evidence["choice"] = {"letter": decision.letter, "confidence": decision.confidence,
                                 "missing": decision.missing,
                                 "verdicts": {k: {"status": v.status, "strength": round(v.strength, 3), "why": v.why,
                                                  "kind": v.kind} for k, v in decision.verdicts.items()}}
    result.features = dict(decision.features)
    result.confidence = decision.confidence if letter else None
    result.missing = None if letter else missing
    if letter is None:
        result.observation = f"No answer: {missing}.\n{result.observation}"
    return result


#: The names the parser gives marks whose labels it could not read: never an answer "as printed".
_PLACEHOLDER = re.compile(r"^(?:Bar|Slice) \d+$")


def answer_from_table(chart: ChartResult, question: str) -> tuple[str | None, float | None]:
    """The answer a parsed chart settles for ``question`` and how sure it is (``skills.chart.confidence``), or
    (None, None) when it needs reasoning beyond the table, or the answer is a mark whose label was not read
    ("Bar 5" for the warmest month)."""
    if asks_another_question(chart, question):
        return None, None
    answer, confidence = _from_table(chart, spell_out_spans(chart, spell_out_day_groups(chart, question)))
    if answer is not None and _PLACEHOLDER.match(answer):
        return None, None
    return answer, confidence


def _from_table(chart: ChartResult, question: str) -> tuple[str | None, float | None]:
    if (against := against_a_number(chart, question)) is not None:
        return against  # "did the conservatory crack 1 million visitors?": its value against the number stated
    if (counted := count_against(chart, question)) is not None:
        return counted  # "in how many months was it below 0 °C?": the categories on that side of the number
    if (first := first_past(chart, question)) is not None:
        return first  # "the first year admissions fell below 100 million": the earliest category past the number
    if unprinted_numbers(chart, question) or asks_another_period(chart, question):
        return None, None  # a premise the chart does not print, or a period before the one it shows
    text = norm(question)
    series = mentioned(chart.series, text) if len(chart.series) > 1 else []
    one_series = series[0] if series else None
    named_series = one_series or (chart.series[0] if len(chart.series) == 1 else None)
    categories = mentioned(chart.categories, text)
    if not categories and any(_PLACEHOLDER.match(c) for c in chart.categories):
        return None, None  # a mark without its label: a total, a mean or an extreme over all of them is unsure
    if any(re.search(rf"\b(?:less|more|fewer) than {re.escape(norm(c))}\b|\b(?:under|over|up to|at least|at most)"
                     rf" {re.escape(norm(c))}\b", text) for c in categories if norm(c).replace(".", "").isdigit()):
        return None, None  # "parking less than 1 hour": a range of the axis, not the mark at its tick "1"
    shown = HOW_MANY_SHOWN.search(text)
    if HOW_MANY_MARKS.search(text) or \
            (shown and not categories and not series and names_the_categories(shown.group("noun"), chart)):
        return str(len(chart.categories)), count_confidence(chart)
    compared = compare_values(chart, text, categories, series)
    if compared is None and not categories:
        compared = step_answer(chart, text, series)  # "did it ever go down?": the steps from one to the next
    if compared is not None:
        return compared
    # "Which …", "What's the biggest category?", or a bare "smallest country on this chart?"
    superlative = SUPERLATIVE_FIRST.match(text)
    if superlative and counted_by_the_values(superlative.group("noun"), chart):
        superlative = None  # "peak viewers on the final?" over "Peak concurrent viewers": a value, not a category
    asks_which = ASKS_WHICH.search(text) or superlative or asks_who(chart, text) or (
        BY_RANK.search(text) and not ASKS_VALUE.search(text))
    if asks_which and (changed := which_changed(chart, text)) is not None:
        return changed  # "which region grew the most from 2022 to 2024?": the change between two named points
    if asks_which and asks_a_change(chart, text):
        return None, None  # the extreme of a change, which the table's values do not name by themselves
    if (rank := RANK.search(text)) is not None:
        # "the second biggest slice", "the team with the 3rd most goals": that rank, when clear on both sides
        k = RANKS.get(rank.group(0).replace("-", " "), 0)
        # "ranked 4th" counts from the top, as a ranking does, unless the question says from the bottom.
        by_ranking = re.search(r"\branked\b", text) is not None and not LOW.search(text)
        if not (asks_which and k and (HIGH.search(text) or LOW.search(text) or by_ranking)):
            return None, None
        at_rank = ranked(chart, k, highest=bool(HIGH.search(text)) or by_ranking, series=one_series)
        return (None, None) if at_rank is None else at_rank
    if asks_which and (HIGH.search(text) or LOW.search(text)) and len(categories) == 1 and not series and \
            len(chart.series) > 1 and asks_for_a_series(chart, text):
        # "which podcast had the most listeners in June": the series within the one category named.
        if unprinted_extreme_noun(chart, text):
            return None, None  # "which podcast earned the most revenue in June" over listeners
        return series_at(chart, categories[0], lower=not HIGH.search(text))
    if asks_which and asks_for_another_kind(text, chart):
        return None, None  # "which docking station was the most popular?" over months: the chart has no stations
    if asks_which and (HIGH.search(text) or LOW.search(text)) and unprinted_extreme_noun(chart, text):
        return None, None  # "which route carried the most cars?" over passengers: counted in something else
    if asks_which and (HIGH.search(text) or LOW.search(text)):
        if (ranked_over := within_named(chart, categories, text)) is None:
            return None, None  # one category named ("in June"), or a named one's label read clipped
        highest = bool(HIGH.search(text))
        found = ranked_over.extreme(highest=highest, series=one_series)
        if found is None or not clear_extreme(ranked_over, highest, one_series if len(chart.series) > 1 else None):
            return None, None  # two marks nearly level: which is the highest is a guess
        return found, extreme_confidence(ranked_over, highest, named_series)
    if asks_which:
        return None, None  # "In which year did the bank begin raising rates again?": a category, not a value
    if unprinted_measure(chart, question) is not None:
        return None, None  # "how many sunny days" over a chart of rainfall: no value of it answers
    used: list[str] = []
    value: float | None = None
    average = False
    sure: float | None = 1.0  # how sure the categories used are the ones asked (an extreme may be too close to tell)
    change = CHANGE_FROM_TO.search(text)
    if change and len(categories) != 2:
        return None, None  # "how much did it grow from January to December" with one of the two not read
    if change:
        used = mentioned(chart.categories, text[change.end():])
        if len(used) != 2:
            return None, None
        a, b = (read_value(chart, c, one_series) for c in used)
        if a is None or b is None or (b - a) * (1 if is_rise(change.group("verb")) else -1) <= 0:
            return None, None  # "how much did it increase" where it fell: the question's premise is not the chart's
        value = abs(b - a)
    elif DIFFERENCE.search(text) and len(categories) >= 2:
        used = categories[:2]
        a, b = (read_value(chart, c, one_series) for c in used)
        value = None if a is None or b is None else abs(a - b)
        if false_premise(text, a, b):
            return None, None
    elif DIFFERENCE.search(text) and len(categories) == 1 and len(series) >= 2:
        # "By how much did 2023 beat 2022 in Q2?": two series in one category.
        used = categories
        a, b = (read_value(chart, categories[0], s) for s in series[:2])
        value = None if a is None or b is None else abs(a - b)
        named_series = None
        if false_premise(text, a, b):
            return None, None
    elif DIFFERENCE.search(text) and not categories and HIGH.search(text) and LOW.search(text):
        # "the difference between the largest and smallest budget": the gap between the two extremes
        used = [c for c in (chart.extreme(True, one_series), chart.extreme(False, one_series)) if c is not None]
        if len(used) != 2:
            return None, None
        a, b = (read_value(chart, c, one_series) for c in used)
        value = None if a is None or b is None else abs(a - b)
        ends = (extreme_confidence(chart, True, named_series), extreme_confidence(chart, False, named_series))
        sure = None if None in ends else min(e for e in ends if e is not None)
    elif DIFFERENCE.search(text):
        return None, None  # a difference with one side the table does not name: never the one value it has
    elif re.search(r"\b(sum|total|combined|altogether|together)\b", text):
        if len(categories) == 1 and re.search(r"\b(sum|combined|altogether|together|and|or|plus)\b", text):
            # "satisfied or very satisfied combined": a second part the labels did not match is no sum of one
            # ("the total sales in March" is March's value).
            return None, None
        if not categories and chart.kind == "pie":
            return None, None  # every slice of a pie sums to 100 %: no reading answers "how many in total"
        if not categories and names_some(text, chart.categories):
            return None, None  # "all the Eastbay routes combined": some of the routes, which are not summed here
        used = categories or chart.categories
        values = [read_value(chart, c, one_series) for c in used]
        if len(categories) == 1 and len(chart.series) > 1 and not series and summed_series(chart, text):
            # "total parcels sent monday (all carriers)": the series' values in that one category.
            values, named_series = [read_value(chart, categories[0], s) for s in chart.series], None
        value = None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)
    elif re.search(r"\b(average|mean)\b", text) and len(categories) != 1 and not HOW_MANY.search(text) \
            and not any(re.search(r"\b(average|mean|avg)\b", norm(t)) for t in chart.texts):
        # Not "the average temperature in April", nor "how many months have an average temperature below zero?"
        # on a chart of average temperatures: there "average" names what is plotted, not a mean to take.
        if not categories and names_some(text, chart.categories):
            return None, None  # the mean of some of them
        used = categories or chart.categories
        values = [read_value(chart, c, one_series) for c in used]
        average = True
        value = None if not values or any(v is None for v in values) else \
            sum(v for v in values if v is not None) / len(values)
    elif len(categories) == 1 and len(series) >= 2:
        return None, None  # two series named in one category: one of their values answers no question about both
    elif len(categories) == 1:
        used = categories
        value = read_value(chart, categories[0], one_series)
    elif not categories and ASKS_VALUE.search(text) and (HIGH.search(text) or LOW.search(text)):
        # "What's the value of the longest bar?": the extreme's value, as sure as both the extreme and its reading
        highest = bool(HIGH.search(text))
        found = chart.extreme(highest=highest, series=one_series)
        used = [] if found is None else [found]
        value = None if found is None else read_value(chart, found, one_series)
        sure = extreme_confidence(chart, highest, named_series)
    if value is None or set(used) & set(unread_labels(chart)):
        return None, None
    # At the precision the chart supports: 65 on a whole-number axis with steps of 10, not 65.1.
    decimals = value_decimals(chart, used, named_series)
    if average and decimals is not None and not _measured(chart, used):
        decimals += 1  # the mean of printed whole numbers may fall between them
    answer = formatted(value, decimals)
    if len(used) == 1 and not average and chart.kind != "pie":
        answer = as_printed(chart, value) or answer
    elif len(used) > 1 and chart.kind != "pie" and not _measured(chart, used):
        # A total of "€412k", "€386k", …: "€2026k", or 2026 when asked "in € thousand".
        answer = in_printed_scale(chart, question, value, average) or answer
    if answer == formatted(value, decimals) and chart.kind != "pie":
        # Read off ticks "€10M", "€12M": "€9.9M" as the chart writes its numbers, not 9900000.
        answer = in_tick_style(chart, question, value) or answer
    if chart.kind == "pie" and not average and re.search(r"\b(?:percent|percentage|share|proportion|portion|fraction|"
                                                        r"how much of)\b|%",
                                                        question, re.I):
        answer += "%"  # a pie's values are shares in percent: "What percent goes to food?" is "20%", as printed
    confidence = values_confidence(chart, used, named_series)
    return answer, None if confidence is None or sure is None else min(confidence, sure)


def _measured(chart: ChartResult, categories: list[str]) -> bool:
    """Whether any value of ``categories`` was measured (against the axis or an angle) rather than printed."""
    wanted = {c.casefold() for c in categories}
    return any(m.source in ("axis", "angle") for m in chart.marks if m.category.casefold() in wanted)

