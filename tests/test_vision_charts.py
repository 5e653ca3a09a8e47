"""Chart parsing on rendered charts: values within tolerance, labels matched, pie percentages, bad inputs.

Charts are rendered with matplotlib (a test/benchmark dependency; skipped when missing) and one bar chart is drawn
by hand with PIL and DejaVu fonts, so the parser is checked against more than one renderer. OCR is the real
RapidOCR through ``vision_tools.text.ocr``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision_tools.charts.axes import parse_number
from vision_tools.charts.parse import parse_chart
from vision_tools.charts.result import match_name

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

BAR = {"Mon": 12.0, "Tue": 25.0, "Wed": 7.5, "Thu": 18.0, "Fri": 30.0}
HBAR = {"Paris": 420.0, "Berlin": 310.0, "Madrid": 150.0, "Rome": 260.0}
GROUPED = {"North": {"Online": 48.0, "Store": 30.0}, "South": {"Online": 22.0, "Store": 41.0},
           "East": {"Online": 35.0, "Store": 15.0}}
LINE = {"Jan": {"Sales": 20.0, "Costs": 12.0}, "Feb": {"Sales": 34.0, "Costs": 18.0},
        "Mar": {"Sales": 27.0, "Costs": 25.0}, "Apr": {"Sales": 45.0, "Costs": 21.0},
        "May": {"Sales": 38.0, "Costs": 30.0}}
PIE = {"Apples": 40.0, "Bananas": 25.0, "Cherries": 20.0, "Grapes": 15.0}


def _png(fig) -> Image.Image:  # noqa: ANN001 - matplotlib figure
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


@pytest.fixture(scope="module")
def charts() -> dict[str, Image.Image]:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: dict[str, Image.Image] = {}
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    ax.bar(list(BAR), list(BAR.values()), color="tab:blue")
    ax.set_title("Sales per day")
    out["bar"] = _png(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    bars = ax.bar(list(BAR), list(BAR.values()), color=["#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"])
    ax.bar_label(bars, labels=[f"{v:g}" for v in BAR.values()])
    out["bar_labels"] = _png(fig)

    with plt.style.context("ggplot"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        ax.barh(list(HBAR), list(HBAR.values()), color="seagreen")
        ax.set_title("Votes per city")
        out["hbar"] = _png(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for j, (name, colour) in enumerate([("Online", "steelblue"), ("Store", "darkorange")]):
        ax.bar([i + (j - 0.5) * 0.38 for i in range(3)], [row[name] for row in GROUPED.values()], 0.38,
               label=name, color=colour)
    ax.set_xticks(range(3), list(GROUPED))
    ax.set_ylim(0, 60)
    ax.legend(loc="upper right")
    out["grouped"] = _png(fig)

    with plt.style.context("seaborn-v0_8-whitegrid"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, colour in [("Sales", "crimson"), ("Costs", "teal")]:
            ax.plot(list(LINE), [row[name] for row in LINE.values()], marker="o", color=colour, label=name)
        ax.set_ylim(0, 50)
        ax.legend(loc="upper left")
        out["line"] = _png(fig)

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.pie(list(PIE.values()), labels=list(PIE), autopct="%1.1f%%", startangle=90,
           colors=["#d62728", "#ffbf00", "#8b0000", "#6a0dad"])
    ax.set_title("Fruit sales")
    out["pie"] = _png(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.pie(list(PIE.values()), colors=["tab:blue", "tab:orange", "tab:green", "tab:purple"],
           wedgeprops={"edgecolor": "white", "linewidth": 1.5})
    ax.legend(list(PIE), loc="center left", bbox_to_anchor=(1.0, 0.5))
    out["pie_legend"] = _png(fig)

    # A donut as budgets are drawn: white percentages on the ring, white edges between slices, words in the hole.
    fig, ax = plt.subplots(figsize=(7, 7))
    _, _, printed = ax.pie(list(PIE.values()), labels=list(PIE), startangle=90, counterclock=False, autopct="%d%%",
                           pctdistance=0.78, colors=["#3b6ea5", "#e0a030", "#5aa469", "#b04a5a"],
                           wedgeprops={"width": 0.4, "edgecolor": "white"})
    for text in printed:
        text.set_color("white")
    ax.text(0, 0, "Fruit\n2025", ha="center", va="center", fontsize=14)
    out["donut"] = _png(fig)
    return out


def _pil_bar_chart() -> Image.Image:
    """A bar chart drawn by hand: axis 0-50 with ticks every 10, four bars, no printed values."""
    image = Image.new("RGB", (640, 420), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 16)
    left, bottom, top = 70, 360, 40

    def y_of(value: float) -> float:
        return bottom - value * (bottom - top) / 50

    draw.text((320, 8), "Stock levels", fill="black", font=ImageFont.truetype(FONT, 20), anchor="mt")
    for tick in range(0, 60, 10):
        draw.line([(left - 5, y_of(tick)), (left, y_of(tick))], fill="black", width=1)
        draw.text((left - 8, y_of(tick)), str(tick), fill="black", font=font, anchor="rm")
    draw.line([(left, top), (left, bottom), (620, bottom)], fill="black", width=2)
    values = {"Red": 35, "Green": 20, "Blue": 45, "Gold": 12}
    colours = [(200, 50, 50), (40, 160, 60), (40, 80, 200), (220, 170, 20)]
    for i, ((name, value), colour) in enumerate(zip(values.items(), colours, strict=True)):
        x0 = 100 + i * 130
        draw.rectangle([x0, y_of(value), x0 + 80, bottom - 1], fill=colour)
        draw.text((x0 + 40, bottom + 10), name, fill="black", font=font, anchor="mt")
    return image


def _close(got: float | None, truth: float, rel: float) -> bool:
    return got is not None and abs(got - truth) <= rel * abs(truth)


def test_bar_chart_values_from_the_axis(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["bar"])
    assert result.kind == "bar"
    assert result.title == "Sales per day"
    assert result.categories == list(BAR)
    for category, truth in BAR.items():
        assert _close(result.value(category), truth, 0.03), (category, result.value(category))
    assert {m.source for m in result.marks} == {"axis"}
    assert result.axis is not None and result.axis.orientation == "y" and len(result.axis.ticks) >= 4
    assert result.extreme(highest=True) == "Fri" and result.extreme(highest=False) == "Wed"


@pytest.mark.parametrize("width", [2.0, 2.5, 3.0])
def test_a_reference_line_drawn_across_the_bars_does_not_cut_them(width: float) -> None:
    # "Long-term average (60 mm)" dashed over the bars, 3-4 px thick: the bars taller than it go on above it.
    import matplotlib.pyplot as plt

    rain = {"Jan": 78, "Feb": 66, "Mar": 55, "Apr": 48, "May": 41, "Jun": 36, "Jul": 22, "Aug": 28, "Sep": 44,
            "Oct": 69, "Nov": 91, "Dec": 84}
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.bar(list(rain), list(rain.values()), color="#4cc9f0")
    ax.axhline(60, color="#f72585", linestyle="--", linewidth=width)
    ax.set_yticks(range(0, 101, 10))
    ax.set_ylabel("Rainfall [mm]")
    result = parse_chart(_png(fig))
    for month, truth in rain.items():
        assert _close(result.value(month), truth, 0.03), (month, result.value(month))


def test_printed_values_are_used_exactly(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["bar_labels"])
    assert result.kind == "bar"  # one colour per bar is still one series
    for category, truth in BAR.items():
        assert result.value(category) == truth
    assert all(m.source == "label" and m.measured is not None and _close(m.measured, m.printed, 0.03)
               for m in result.marks)


def test_horizontal_bars(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["hbar"])
    assert result.kind == "hbar"
    assert sorted(result.categories) == sorted(HBAR)
    for category, truth in HBAR.items():
        assert _close(result.value(category), truth, 0.03), (category, result.value(category))
    assert result.axis is not None and result.axis.orientation == "x"


def test_grouped_bars_take_series_names_from_the_legend(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["grouped"])
    assert result.kind == "grouped_bar"
    assert result.series == ["Online", "Store"]
    assert result.categories == list(GROUPED)
    for category, row in GROUPED.items():
        for series, truth in row.items():
            assert _close(result.value(category, series), truth, 0.03), (category, series)
    assert result.value("North") is None  # two series: the series must be named


def test_line_chart_two_series(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["line"])
    assert result.kind == "line"
    assert sorted(result.series) == ["Costs", "Sales"]
    assert result.categories == list(LINE)
    for category, row in LINE.items():
        for series, truth in row.items():
            assert _close(result.value(category, series), truth, 0.04), (category, series,
                                                                           result.value(category, series))
    assert result.extreme(True, "Sales") == "Apr"


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_short_day_labels_the_row_reading_clips_are_read_again_alone(kind: str) -> None:
    # A week of visitors at 1100x660: read as one row, "Wed" came out "ed" (at 0.92), "Fri" as "Fi" or "F".
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    values = [120, 140, 100, 160, 180, 240, 220]
    fig, ax = plt.subplots(figsize=(11, 6.6), dpi=100)
    if kind == "line":
        ax.plot(days, values, marker="o", color="#8e44ad", linewidth=2.5)
    else:
        ax.bar(days, values, color="#8e44ad")
    ax.set_title("Daily visitors (week 32)", fontsize=16)
    ax.set(xlabel="Day", ylabel="Visitors", ylim=(0, 280))
    ax.tick_params(labelsize=14)
    ax.grid(True, alpha=0.6)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    result = parse_chart(Image.open(buffer).convert("RGB"))
    assert result.kind == kind
    assert sorted(result.categories) == sorted(days)
    for day, truth in zip(days, values, strict=True):
        assert _close(result.value(day), truth, 0.02), (day, result.value(day))


def test_pie_percentages_printed_and_cross_checked(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["pie"])
    assert result.kind == "pie"
    assert result.title == "Fruit sales"
    assert sorted(result.categories) == sorted(PIE)
    for name, share in PIE.items():
        assert result.value(name) == share  # the printed "40.0%" wins ...
    for mark in result.marks:
        assert mark.source == "printed"
        assert abs(mark.measured - PIE[mark.category]) <= 1.5  # ... because the angle agrees with it


def test_pie_shares_from_angles_with_legend_names(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["pie_legend"])
    assert result.kind == "pie"
    assert sorted(result.categories) == sorted(PIE)
    for name, share in PIE.items():
        assert abs(result.value(name) - share) <= 1.5, (name, result.value(name))
    assert {m.source for m in result.marks} == {"angle"}
    assert abs(sum(row["percent"] for row in result.table.values()) - 100) < 0.5


def test_a_donut_with_its_percentages_printed_on_the_ring(charts: dict[str, Image.Image]) -> None:
    # The white percentages lie where the slices' colours are sampled: read at one radius, each split its slice in
    # two, and the halves took labels and shares that were not theirs.
    result = parse_chart(charts["donut"])
    assert result.kind == "pie"
    assert sorted(result.categories) == sorted(PIE), result.categories
    assert {name: result.value(name) for name in PIE} == PIE
    assert result.label_on_several_marks is None and not result.warnings


PALE_PIE = {"Apex": 27.0, "Nova": 22.0, "Orbit": 18.0, "Zenit": 13.0, "Lumo": 8.0, "Others": 12.0}


def test_a_pie_with_pale_slices_and_neighbouring_key_colours() -> None:
    # A light cyan and a pale grey slice lay within the tolerance of a faint background blend: the disk lost a
    # fifth of its area and was no pie. A teal key lay within the tolerance of a steel-blue one, and each key took
    # the first slice near its colour: Nova's share went to Zenit, Zenit's to Nova.
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    ax.pie(list(PALE_PIE.values()), colors=["#e63946", "#457b9d", "#f4a261", "#2a9d8f", "#a8dadc", "#adb5bd"],
           startangle=90, counterclock=False, autopct="%d%%", wedgeprops={"edgecolor": "white", "linewidth": 2})
    ax.legend(list(PALE_PIE), loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    result = parse_chart(_png(fig))
    assert result.kind == "pie"
    # The grey key names the grey slice too: it is looked for in that very grey, which no text is printed in.
    assert {name: result.value(name) for name in PALE_PIE} == PALE_PIE, result.table


def test_a_donut_labelled_outside_with_a_total_in_its_hole() -> None:
    # "€2,400" in the hole had been taken for the top slice's percentage (2400 %); the "38%" under each name
    # outside the rim went unused, so every share was an angle's measurement.
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shares = {"Rent": 38.0, "Groceries": 14.0, "Transport": 9.0, "Eating out": 11.0, "Utilities": 7.0,
              "Savings": 15.0, "Other": 6.0}
    fig, ax = plt.subplots(figsize=(7, 7))
    ax.pie(list(shares.values()), labels=[f"{k}\n{v:g}%" for k, v in shares.items()], startangle=90,
           counterclock=False, wedgeprops={"width": 0.4, "edgecolor": "white"})
    ax.text(0, 0.05, "€2,400", ha="center", fontsize=22, fontweight="bold")
    ax.text(0, -0.15, "total spent", ha="center", fontsize=12, color="grey")
    ax.set_title("Where my money went in March")
    result = parse_chart(_png(fig))
    assert result.kind == "pie"
    assert {name: result.value(name) for name in shares} == shares, result.table
    assert {m.source for m in result.marks} == {"printed"} and not result.warnings


def test_hand_drawn_bar_chart() -> None:
    result = parse_chart(_pil_bar_chart())
    assert result.kind == "bar"
    assert result.title == "Stock levels"
    for category, truth in {"Red": 35, "Green": 20, "Blue": 45, "Gold": 12}.items():
        assert _close(result.value(category), truth, 0.03), (category, result.value(category))


def test_result_outputs(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["grouped"])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["kind"] == "grouped_bar" and data["found"] is True
    assert data["table"]["South"]["Store"] == pytest.approx(41.0, rel=0.03)
    assert all(len(m["box"]) == 4 and all(isinstance(v, int) for v in m["box"]) for m in data["marks"])
    lines = result.markdown().splitlines()
    assert lines[0] == "| category | Online | Store |" and len(lines) == 2 + len(GROUPED)
    assert "\n" not in result.summary() and "grouped_bar" in result.summary()
    assert result.annotated is not None and result.annotated.size == charts["grouped"].size
    # The evidence is drawn: the annotated image differs from the chart where the bars are outlined.
    assert np.abs(np.asarray(result.annotated, dtype=int) - np.asarray(charts["grouped"], dtype=int)).sum() > 0


@pytest.mark.slow
def test_large_image_boxes_in_original_pixels(charts: dict[str, Image.Image]) -> None:
    small = charts["bar"]
    big = small.resize((small.width * 4, small.height * 4), Image.Resampling.LANCZOS)
    result = parse_chart(big)
    assert result.kind == "bar"
    for category, truth in BAR.items():
        assert _close(result.value(category), truth, 0.03)
    assert max(result.annotated.size) <= 1600
    widest = max(m.box.x1 for m in result.marks)
    assert widest > 0.6 * big.width  # boxes are in the 2560-px frame, not the 1600-px work frame


def test_grayscale_chart_is_read(charts: dict[str, Image.Image]) -> None:
    result = parse_chart(charts["bar"].convert("L"))
    assert result.kind == "bar"
    assert _close(result.value("Fri"), 30.0, 0.03)


def test_kind_can_be_forced_and_a_wrong_kind_finds_nothing(charts: dict[str, Image.Image]) -> None:
    assert parse_chart(charts["hbar"], kind="hbar").kind == "hbar"
    result = parse_chart(charts["bar"], kind="pie")
    assert result.kind is None and not result.found and "pie" in result.reason


@pytest.mark.parametrize("name", ["blank", "text", "noise", "disk"])
def test_not_a_chart_gives_a_clear_empty_result(name: str, tmp_path: Path) -> None:
    image = Image.new("RGB", (480, 320), "white")
    draw = ImageDraw.Draw(image)
    if name == "text":
        draw.text((30, 120), "OPEN LATE TODAY", fill="black", font=ImageFont.truetype(FONT, 40))
    elif name == "noise":
        image = Image.fromarray(np.random.default_rng(0).integers(0, 256, (320, 480, 3), dtype=np.uint8))
    elif name == "disk":
        draw.ellipse((140, 60, 340, 260), fill=(220, 40, 40))  # a red ball is not a pie
    result = parse_chart(image)
    assert result.kind is None and not result.found
    assert result.reason
    assert result.summary().startswith("No chart found")
    assert result.markdown().startswith("_No chart found")
    assert result.value("anything") is None
    assert json.loads(json.dumps(result.to_dict()))["found"] is False


def test_bad_inputs_raise_clear_value_errors() -> None:
    with pytest.raises(ValueError, match="too small"):
        parse_chart(Image.new("RGB", (1, 1)))
    with pytest.raises(ValueError, match="PIL image"):
        parse_chart(np.zeros((100, 100, 3), dtype=np.uint8))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown chart kind"):
        parse_chart(Image.new("RGB", (200, 200)), kind="donut")


def test_parse_number_reads_axis_labels() -> None:
    assert parse_number("1,200") == (1200.0, False)
    assert parse_number("\u22125") == (-5.0, False)  # matplotlib's minus sign
    assert parse_number("42.5%") == (42.5, True)
    assert parse_number("$3.5k") == (3500.0, False)
    assert parse_number("800-") == (800.0, False)  # a tick mark read as a dash
    assert parse_number("- 0") == (0.0, False)
    assert parse_number("Tuesday") is None
    assert parse_number("12 apples") is None


def test_names_match_tolerantly_but_not_loosely() -> None:
    names = ["Monday", "Tuesday", "Thuurday", "New York"]
    assert match_name("monday", names) == "Monday"
    assert match_name("new-york", names) == "New York"
    assert match_name("Thursday", names) == "Thuurday"  # one OCR slip
    assert match_name("Wednesday", names) is None
    assert match_name("", names) is None


@pytest.mark.slow
def test_blindtest_diagrams_are_not_charts(blindtest_dir: Path) -> None:
    items = [json.loads(line) for line in (blindtest_dir / "items.jsonl").read_text().splitlines() if line]
    picked = {}
    for item in items:  # one of each kind: crossing coloured lines, grids, circles, nested squares, ...
        picked.setdefault(item["category"], item)
    assert len(picked) >= 4
    for item in picked.values():
        result = parse_chart(Image.open(blindtest_dir / item["image"]).convert("RGB"))
        assert result.kind is None, (item["image"], result.summary())
        assert result.reason


@pytest.mark.parametrize("spine", [True, False])
def test_horizontal_bars_measure_from_the_spine_not_past_it(spine: bool) -> None:
    # A left spine is drawn over the bars' first column; measured from the column after it, every bar read about
    # one pixel short (on average -0.23 of these units, all 20 bars short) before the base moved under the spine.
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    errors = []
    for values in ([17, 58, 83, 36, 71], [44, 9, 62, 91, 27], [55, 33, 78, 12, 66], [24, 87, 49, 5, 93]):
        fig, ax = plt.subplots(figsize=(6.4, 4.8))
        ax.barh(["Ann", "Ben", "Cal", "Dee", "Eve"], values, color="tab:green")
        ax.set_xlim(0, 100)
        ax.spines["left"].set_visible(spine)
        chart = parse_chart(_png(fig))
        errors += [m.value - values[["Ann", "Ben", "Cal", "Dee", "Eve"].index(m.category)] for m in chart.marks]
    assert len(errors) == 20
    # With the spine, the bars' base is its column (mean error about -0.04); without one, the bars' own first column
    # (about +0.14: moving that base a column left too would read them +0.4 long).
    assert abs(float(np.mean(errors))) < (0.1 if spine else 0.2) and max(abs(e) for e in errors) < 0.35


def _slide_bars(labels: dict[str, str], heights: dict[str, float]) -> Image.Image:
    """A slide's bar chart: no value axis, pale value labels with a unit above the bars."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 6.75))
    fig.patch.set_facecolor("#fdf6ec")
    ax.set_facecolor("#fdf6ec")
    bars = ax.bar(list(heights), list(heights.values()), color="#264653", width=0.55)
    ax.bar_label(bars, labels=[labels[k] for k in heights], padding=6, color="#555555", fontsize=13)
    ax.set_yticks([])
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title("Average parcel delivery time by city", loc="left", fontsize=22)
    return _png(fig)


def test_values_printed_with_a_unit_on_a_chart_without_an_axis() -> None:
    hours = {"Berlin": 26.4, "Madrid": 31.8, "Paris": 22.9, "Rome": 35.2, "Warsaw": 28.7, "Vienna": 19.6}
    result = parse_chart(_slide_bars({k: f"{v:g} h" for k, v in hours.items()}, hours))
    assert result.kind == "bar"
    assert {name: result.value(name) for name in hours} == hours, result.table
    assert not any("out of line" in w for w in result.warnings)


def test_a_printed_value_out_of_line_with_the_bars_is_flagged() -> None:
    hours = {"Berlin": 26.4, "Madrid": 31.8, "Paris": 22.9, "Rome": 35.2, "Warsaw": 28.7, "Vienna": 19.6}
    labels = {k: f"{v:g} h" for k, v in hours.items()} | {"Paris": "62.9 h"}  # a digit misread, or a wrong label
    result = parse_chart(_slide_bars(labels, hours))
    assert any(w.startswith("Paris: the printed 62.9 is out of line") for w in result.warnings), result.warnings


def test_gridlines_with_a_coloured_line_look_like_a_chart_and_a_ruled_form_does_not() -> None:
    from vision_tools.charts import chart_likeness

    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5))
    ax.plot(["Jan", "Feb", "Mar", "Apr", "May", "Jun"], [5.1, 5.4, 7.8, 10.2, 13.4, 16.3], color="tab:orange")
    ax.set_facecolor("#eaeaf2")
    ax.grid(color="white", linewidth=1.2)
    for side in ax.spines.values():
        side.set_visible(False)
    assert chart_likeness(_png(fig)).chart  # no axis lines, no flat colour areas: its grid says it
    form = Image.new("RGB", (900, 600), "white")
    draw = ImageDraw.Draw(form)
    for y in range(60, 600, 45):
        draw.line((40, y, 860, y), fill=(170, 170, 170), width=1)
    draw.text((50, 20), "Name:", fill="black", font=ImageFont.truetype(FONT, 20))
    assert not chart_likeness(form).chart  # ruled, but nothing coloured is plotted on it


def test_a_label_printed_with_a_unit_never_joins_the_ticks_of_its_axis() -> None:
    # From a misleading chart's broken axis (ticks 250 … 0 unevenly spaced): "$260 cm" over the first point, its
    # left edge in the ticks' column, had joined the fit as a tick of 260, and the fit's 260 line was wrong.
    from vision_tools.charts.axes import Text, fit_axis
    from vision_tools.image.boxes import Box

    def text(s: str, x0: float, y: float, x1: float) -> Text:
        parsed = parse_number(s)
        return Text(s, Box(x0, y - 10, x1, y + 10), 0.99, parsed[0] if parsed else None)

    ticks = [text(v, 142, y, 174) for v, y in (("250", 250), ("200", 340), ("150", 440), ("100", 560), ("50", 720))]
    label = text("$260 cm", 142, 215, 210)
    fitted = fit_axis([label, *ticks], "y")
    assert fitted is not None and label not in fitted[1]
    assert label.style == "$ cm" and ticks[0].style == ""
