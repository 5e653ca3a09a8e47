"""The key-information rules on text alone: amounts and dates as printed, skewed rows, total labels, header blocks,
printed labels. Real receipts through OCR are in test_receipts.py."""

from __future__ import annotations

import math

import pytest

from vision_tools.documents.dates import find_date
from vision_tools.documents.header import company_text, find_address, find_company
from vision_tools.documents.labels import find_label_value, label_words, variants_for
from vision_tools.documents.layout import Layout, estimate_skew
from vision_tools.documents.name_words import repair_name
from vision_tools.documents.patterns import amounts_in, damaged_tokens, dates_in, repair_address, sole_amount
from vision_tools.documents.totals import classify_label, find_total, tax_reading
from vision_tools.image import Box
from vision_tools.text import OcrLine


def page(rows: list[list[tuple[str, float]]], skew: float = 0.0, height: float = 30.0,
         confidence: float = 0.98) -> Layout:
    """A page of ``rows`` of (text, x) lines, 40 px apart, turned by ``skew`` degrees about the origin."""
    lines = []
    slope = math.tan(math.radians(skew))
    for r, row in enumerate(rows):
        for text, x in row:
            y = 50 + 40 * r + x * slope
            width = 14.0 * len(text)
            lines.append(OcrLine(text, Box(x, y, x + width, y + height + width * abs(slope)), confidence, skew))
    return Layout.of(lines, (1000, 60 + 40 * len(rows)))


@pytest.mark.parametrize(("text", "printed", "value"), [
    ("TOTAL RM 14.10", "RM 14.10", 14.10),
    ("Nett Total: $8.20", "$8.20", 8.20),
    ("Grand TotalRM15.40", "RM15.40", 15.40),
    ("RMO.08", "RMO.08", 0.08),
    ("8.40*", "8.40", 8.40),
    ("Rounding -0.01", "-0.01", -0.01),
    ("Rounding Adjustment RM -.01", "RM -.01", -0.01),
    ("1,234.50 SR", "1,234.50", 1234.50),
])
def test_amounts_are_read_as_printed(text: str, printed: str, value: float) -> None:
    found = amounts_in(text)
    assert [(a.text, a.value) for a in found][-1] == (printed, pytest.approx(value))


@pytest.mark.parametrize("text", ["Qty 1.000", "TEL 03-3271 9872", "12/02/2018", "Invoice 18301/102/T0305", "6%", "ver .05", "x-.05",
                                  "#-.05", "(-.05)"])
def test_quantities_phones_and_dates_are_not_amounts(text: str) -> None:
    assert amounts_in(text) == []


def test_a_sole_amount_allows_a_currency_and_a_tax_mark_only() -> None:
    assert sole_amount("RM 14.10").text == "RM 14.10"
    assert sole_amount("5.20 S").value == pytest.approx(5.20)
    assert sole_amount("FISHBALL NOODLE 7.00") is None


@pytest.mark.parametrize(("text", "printed"), [
    ("Frid-v, 29-12-2017", "29-12-2017"),
    ("Date:12/02/2018", "12/02/2018"),
    ("05 Mar 2018 18:24", "05 Mar 2018"),
    ("DATE:12/13/2016 9:52:15 AM", "12/13/2016"),
    ("Date: 9/3/2018 20:54:50", "9/3/2018"),
    ("26-04-18 16:59 SH01 ZJ86", "26-04-18"),
    ("2018-01-31", "2018-01-31"),
    ("March 5, 2018", "March 5, 2018"),
    ("00440010036 25032018 13:11:54", "25032018"),
    ("Date 29/12/201711:41", "29/12/2017"),  # the year touches the time
    ("01-NoV-2017_11:20:04AM R05934", "01-NoV-2017"),  # an underscore for the space
])
def test_dates_are_answered_exactly_as_printed(text: str, printed: str) -> None:
    assert [d.text for d in dates_in(text)] == [printed]


@pytest.mark.parametrize("text", ["31/31/2018", "Invoice No: SP-nu11-18/06/09-1018481", "TEL 03-4043 7678",
                                  "SUN-THU:1000 HRS - 2200 HRS", "1.000 6.00", "Ref 29/12/20171",
                                  "Invoice 12/02/201812"])
def test_impossible_or_embedded_dates_are_not_dates(text: str) -> None:
    assert dates_in(text) == []


def test_skew_is_measured_and_rows_levelled() -> None:
    # Turned by 2 degrees, the right column sits 20 px lower than its label: a row apart without levelling.
    rows = [[("SUB-TOTAL", 60.0), ("144.68", 600.0)], [("TAX", 60.0), ("8.68", 600.0)],
            [("TOTAL", 60.0), ("153.35", 600.0)], [("THANK YOU FOR SHOPPING WITH US", 60.0)],
            [("GOODS SOLD ARE NOT RETURNABLE", 60.0)], [("PLEASE COME AGAIN SOON", 60.0)]]
    layout = page(rows, skew=2.0)
    assert estimate_skew(layout_lines(layout)) == pytest.approx(2.0)
    assert [layout.row_text(r) for r in range(len(layout.rows))][:3] == ["SUB-TOTAL 144.68", "TAX 8.68",
                                                                         "TOTAL 153.35"]


def layout_lines(layout: Layout) -> list[OcrLine]:
    return [p.line for p in layout.lines]


@pytest.mark.parametrize(("label", "kind"), [
    ("TOTAL", "total"), ("Grand Total", "total"), ("NETT TOTAL", "total"), ("Total Incl. GST@6%", "total"),
    ("Total Sales (Inclusive of GST) :", "total"), ("Totak", "total"), ("Amount Due", "total"),
    ("SUB-TOTAL/(EX)", "subtotal"), ("Total Sales (Excluding GST)", "subtotal"), ("Total GST", "tax"),
    ("CASH", "paid"), ("CHANGE", "change"), ("CHA,NGE", "change"), ("Rounding Adj", "rounding"),
    ("Total (Incl.GST)", "total"),
])
def test_total_labels_are_told_apart(label: str, kind: str) -> None:
    assert classify_label(label)[0] == kind


def test_label_words_split_by_a_mark_are_joined_but_names_split_by_a_space_are_not() -> None:
    assert label_words("CHA,NGE") == ["change"]
    assert label_words("Cashier : SU MAY") == ["cashier", "su", "may"]  # not "summary"
    assert classify_label("GR AND PRIX CAP") is None  # not "grand"


@pytest.mark.parametrize("label", ["Total Qty :", "Item(s) : 4", "Total Points", "TOTAL INCLUDES 0% GST"])
def test_labels_that_only_look_like_totals_are_ignored(label: str) -> None:
    assert classify_label(label) is None


def test_the_total_agrees_with_cash_minus_change_not_the_subtotal() -> None:
    layout = page([[("SUBTOTAL", 40.0), ("RM41.43", 400.0)], [("ROUNDING", 40.0), ("RM0.02", 400.0)],
                   [("SUBTOTAL", 40.0), ("RM41.45", 400.0)], [("CASH", 40.0), ("RM51.50", 400.0)],
                   [("CHANGE", 40.0), ("RM10.05", 400.0)], [("GST SUMMARY", 40.0)],
                   [("Total", 40.0), ("39.09", 300.0), ("41.43", 400.0)]])
    total = find_total(layout)
    assert total.value == "RM41.45" and "paid minus change agrees" in total.how
    assert total.boxes and total.confidence >= 0.5


def test_the_total_after_rounding_is_the_bill_and_the_unrounded_one_gives_way() -> None:
    layout = page([[("Total (Excluding GST):", 40.0), ("35.60", 400.0)],
                   [("Total (Inclusive of GST):", 40.0), ("41.52", 400.0)],
                   [("Rounding Adj:", 40.0), ("-0.02", 400.0)], [("TOTAL:", 40.0), ("41.50", 400.0)]])
    total = find_total(layout)
    assert total.value == "41.50" and "an earlier total + rounding agrees" in total.how and not total.unchecked
    # A till that drops the zero of a rounding adjustment, and a rounded total labelled "Rounding".
    layout = page([[("Total Sales (Inclusive GST)", 40.0), ("RM 22.91", 400.0)],
                   [("Rounding Adjustment", 40.0), ("RM -.01", 400.0)], [("Rounding", 40.0), ("RM 22.90", 400.0)]])
    assert find_total(layout).value == "RM 22.90"
    # "Amount To Be Paid" is what is owed (a total), not a payment; a balance after a deposit is not the bill.
    assert classify_label("Amount To Be Paid :") == ("total", 1.0)
    assert classify_label("BALANCE TO BE PAID")[0] != "total"
    assert find_total(page([[("TOTAL", 40.0), ("50.00", 400.0)], [("DEPOSIT", 40.0), ("20.00", 400.0)],
                            [("BALANCE TO BE PAID", 40.0), ("30.00", 400.0)]])).value == "50.00"


def test_without_a_rounded_total_line_the_printed_total_stands_and_the_payment_confirms_it() -> None:
    layout = page([[("GST 6%", 40.0), ("RM0.08", 400.0)], [("TOTAL", 40.0), ("RM1.38", 400.0)],
                   [("ROUNDING", 40.0), ("RM0.02", 400.0)], [("CASH", 40.0), ("RM1.40", 400.0)]])
    total = find_total(layout)
    assert total.value == "RM1.38" and "amount paid agrees after rounding" in total.how and not total.unchecked


def test_a_total_only_its_own_line_prints_is_marked_unchecked() -> None:
    items = [[("HONEY TOAST", 40.0), ("3.30", 400.0)], [("EGG TART", 40.0), ("5.10", 400.0)]]
    alone = find_total(page([*items, [("Total Payable:", 40.0), ("8.45", 400.0)]]))
    assert alone.value == "8.45" and alone.unchecked and "nothing else on the receipt confirms it" in alone.how
    assert alone.to_dict()["unchecked"] is True
    # The same amount printed elsewhere is no check: one of several item lines or the tax summary may print it.
    repeated = find_total(page([[("KAYA TOAST", 40.0), ("2.10", 400.0)], [("TEH TARIK", 40.0), ("8.40", 400.0)],
                                [("TOTAL", 40.0), ("8.40", 400.0)], [("GST SUMMARY", 40.0)],
                                [("SR @ 6%", 40.0), ("8.40", 300.0), ("0.48", 400.0)]]))
    assert repeated.value == "8.40" and repeated.unchecked
    paid = find_total(page([*items, [("TOTAL", 40.0), ("8.40", 400.0)], [("CASH", 40.0), ("10.00", 400.0)],
                            [("CHANGE", 40.0), ("1.60", 400.0)]]))
    assert paid.value == "8.40" and not paid.unchecked


def test_item_amounts_that_add_up_to_the_total_confirm_it() -> None:
    items = [[("HONEY TOAST", 40.0), ("3.30", 400.0)], [("EGG TART", 40.0), ("5.10", 400.0)]]
    total = find_total(page([[("KEDAI KOPI", 40.0)], *items, [("TOTAL", 40.0), ("8.40", 400.0)]]))
    assert total.value == "8.40" and "item amounts printed above add up" in total.how and not total.unchecked
    one_item = find_total(page([[("6.00 BOXES", 40.0), ("17.00", 300.0), ("102.00", 400.0)],
                                [("Total", 40.0), ("102.00", 400.0)]]))
    assert one_item.value == "102.00" and not one_item.unchecked


def test_items_do_not_confirm_an_amount_that_tax_or_rounding_is_still_added_to() -> None:
    items = [[("NASI LEMAK", 40.0), ("10.00", 400.0)], [("MILO", 40.0), ("5.00", 400.0)]]
    taxed = find_total(page([*items, [("TOTAL", 40.0), ("15.00", 400.0)], [("SST 10%", 40.0), ("1.50", 400.0)]]))
    assert taxed.value == "15.00" and taxed.unchecked  # 1.50 is 10 % of 15.00: the bill is 16.50, its line unread
    rounded = find_total(page([*items, [("TOTAL", 40.0), ("15.00", 400.0)], [("ROUNDING", 40.0), ("0.00", 400.0)],
                               [("ROUNDING ADJ", 40.0), ("-0.02", 400.0)]]))
    assert rounded.unchecked


def test_a_printed_tax_that_is_the_totals_share_confirms_it() -> None:
    layout = page([[("SET A", 40.0), ("20.00", 400.0)], [("Total Incl. GST", 40.0), ("41.00", 400.0)],
                   [("GST 6% included", 40.0), ("2.32", 400.0)]])
    total = find_total(layout)
    assert total.value == "41.00" and "its share at a usual rate" in total.how and not total.unchecked
    assert tax_reading(41.00, [2.32]) == "included" and tax_reading(38.68, [2.32]) == "added"
    assert tax_reading(1.00, [0.06]) is None  # on a small amount the share and the tax round alike


def test_part_totals_that_add_up_to_the_total_confirm_it() -> None:
    layout = page([[("WHOLEMEAL", 40.0), ("13.90", 520.0)], [("Total 0% supplies:", 40.0), ("35.14", 520.0)],
                   [("CR-CHOCLT", 40.0), ("-3.60", 520.0)], [("GST:", 40.0), ("-0.22", 520.0)],
                   [("Total 6% supplies (Inc. GST):", 40.0), ("-3.82", 520.0)],
                   [("Total Payable:", 40.0), ("31.32", 520.0)]])
    total = find_total(layout)
    assert total.value == "31.32" and "part totals" in total.how and not total.unchecked


def test_a_bill_paid_in_parts_is_confirmed_by_the_payments_together() -> None:
    layout = page([[("SET LUNCH", 40.0), ("188.90", 500.0)], [("TOTAL", 40.0), ("188.90", 500.0)],
                   [("CASH", 40.0), ("50.00", 500.0)], [("VISA", 40.0), ("138.90", 500.0)]])
    total = find_total(layout)
    assert total.value == "188.90" and "payments add up" in total.how and not total.unchecked


def test_a_total_line_set_aside_is_taken_when_payment_minus_change_prints_its_amount() -> None:
    layout = page([[("1 SUMMER CUP", 40.0), ("8.49", 300.0), ("9.00", 400.0)], [("GST 6%", 40.0), ("0.51", 400.0)],
                   [("Total Includes GST 6%", 40.0), ("9.00", 400.0)], [("Cash", 40.0), ("50.00", 400.0)],
                   [("Change", 40.0), ("41.00", 400.0)]])
    total = find_total(layout)
    assert total.value == "9.00" and total.label == "Total Includes GST 6%" and "paid minus change agrees" in total.how


def test_a_receipt_without_a_total_or_payment_abstains() -> None:
    layout = page([[("SAM SAM TRADING CO", 100.0)], [("GLUE", 40.0), ("5.20", 400.0)],
                   [("PAPER", 40.0), ("8.90", 400.0)]])
    total = find_total(layout)
    assert total.value is None and "total" in total.missing


def test_company_and_address_come_from_the_header_block() -> None:
    layout = page([[("A03018", 300.0)], [("UNIHAKKA INTERNATIONAL SDN BHD", 150.0)], [("05 Mar 2018 18:24", 200.0)],
                   [("(867388-U)", 220.0)], [("12, Jalan Tampoi 7/4,Kawasan Perindustrian", 120.0)],
                   [("Tampoi,81200 Johor Bahru, Johor", 150.0)], [("TAX INVOICE", 200.0)],
                   [("Total Amount: $8.20", 300.0)]])
    company, address = find_company(layout), find_address(layout)
    assert company.value == "UNIHAKKA INTERNATIONAL SDN BHD"
    assert address.value == "12, Jalan Tampoi 7/4,Kawasan Perindustrian Tampoi,81200 Johor Bahru, Johor"
    assert find_date(layout).value == "05 Mar 2018"


def test_registration_numbers_are_not_part_of_the_name() -> None:
    assert company_text("99 SPEED MART S/B (519537-X)") == "99 SPEED MART S/B"
    assert company_text("GARDENIA BAKERIES (KL) SDN BHD (139386 X)") == "GARDENIA BAKERIES (KL) SDN BHD"
    assert company_text("AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD") == \
        "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD"


def test_faded_address_words_are_restored_only_when_one_word_fits() -> None:
    assert repair_address("NO.12,JA:AN SS4C/5,PETALING JAYA SE_ANGOR DARUL EHSAN")[0] == \
        "NO.12,JALAN SS4C/5,PETALING JAYA SELANGOR DARUL EHSAN"
    assert repair_address("LOT G29 & G3O, AEON Ma11")[0] == "LOT G29 & G30, AEON Mall"
    assert repair_address("NO 18, 20, 22, JALAN BUNGA TANJONG 2/16")[1] == 0
    assert repair_address("42-46, OJLN SULTAN AZLAN SHAH")[0] == "42-46, JLN SULTAN AZLAN SHAH"  # a speck
    assert repair_address('DESA TEBRAU, TAMAN DESA "EBRAU.') == ("DESA TEBRAU, TAMAN DESA TEBRAU.", 1)
    assert repair_address('TAMAN DESA "EBRAU.') == ('TAMAN DESA "EBRAU.', 0)  # nothing says what was printed


def test_digits_read_as_capitals_mark_a_damaged_address() -> None:
    assert damaged_tokens("TEMASYA INDUSTRIAL PARK AOOOI O SGOR") == ["AOOOI"]
    assert damaged_tokens("OLIVIA BOUTIQUE, JALAN IPOH, ILLINOIS") == []


def test_a_misread_letter_in_a_long_business_word_is_restored_and_lowers_confidence() -> None:
    assert repair_name("TSH POWER HARDWÀRE TRADING") == ("TSH POWER HARDWARE TRADING", ["HARDWÀRE"])
    assert repair_name("LAVENDER CONFECTEONERY & BAKERY S/B")[0] == "LAVENDER CONFECTIONERY & BAKERY S/B"
    assert repair_name("Hardwake Store")[0] == "Hardware Store"
    # Real words and real accents are printed as they are: short neighbours, plurals, names, a café.
    for printed in ("BAKERS CORNER", "GRADING SDN BHD", "GROCERS PLACE", "CAFÉ DE PARIS", "KEDAI RUNCIT AH SENG"):
        assert repair_name(printed) == (printed, [])
    read = find_company(page([[("KEDAI HARDWAKE SDN BHD", 30.0)], [("NO 1, JALAN 2, 43000 KAJANG", 30.0)]]))
    clean = find_company(page([[("KEDAI HARDWARE SDN BHD", 30.0)], [("NO 1, JALAN 2, 43000 KAJANG", 30.0)]]))
    assert read.value == clean.value == "KEDAI HARDWARE SDN BHD"
    assert read.confidence < clean.confidence and "'HARDWAKE'" in read.how


def test_any_printed_label_gives_the_value_beside_it() -> None:
    layout = page([[("INV No.: 1054650", 30.0), ("Cashier: Nicole", 400.0)], [("Date", 30.0), (":21-03-2018", 160.0)],
                   [("CHANGE", 30.0), ("RM 5.90", 500.0)]])
    assert find_label_value(layout, "invoice number").value == "1054650"
    assert find_label_value(layout, "cashier").value == "Nicole"
    assert find_label_value(layout, "change").value == "RM 5.90"
    missing = find_label_value(layout, "table number")
    assert missing.value is None and "'table number'" in missing.missing


def test_brackets_that_set_a_value_off_from_its_label_are_not_part_of_it() -> None:
    layout = page([[("Monthly target (300)", 30.0)], [("Room [B12]", 30.0)], [("Variance (12.50)", 30.0)]])
    assert find_label_value(layout, "monthly target").value == "300"
    assert find_label_value(layout, "room").value == "B12"
    assert find_label_value(layout, "variance").value == "(12.50)"  # an accountant's negative amount


def test_the_balance_is_the_amount_printed_beside_it_not_the_total() -> None:
    layout = page([[("Total", 300.0), ("£41.50", 700.0)], [("Deposit paid", 300.0), ("£10.00", 700.0)],
                   [("Balance due", 300.0), ("£31.50", 700.0)]])
    assert find_label_value(layout, "balance").value == "£31.50"


def test_label_variants_follow_receipt_abbreviations() -> None:
    assert variants_for("invoice number")[:3] == ["invoice number", "invoice no", "invoice num"]
    assert "inv no" in variants_for("invoice number") and "bill no" in variants_for("invoice number")
    assert "gst" in variants_for("tax")


@pytest.mark.parametrize("text", ["Salt 0.08 g", "Net 2.50kg", "Fat 14.20 g", "Fibre 7.40%"])
def test_a_number_with_a_unit_of_measure_is_no_price_or_amount(text: str) -> None:
    from skills.ocr.spans import PRICE

    assert PRICE.search(text) is None
    assert sole_amount(text.split(" ", 1)[1]) is None


@pytest.mark.parametrize(("text", "price"), [("TOTAL 12.50", "12.50"), ("Eggs £3.45", "£3.45"),
                                             ("4.99 each", "4.99"), ("12.50 RM", "12.50 RM")])
def test_money_is_still_read_with_or_without_its_sign(text: str, price: str) -> None:
    from skills.ocr.spans import PRICE

    found = PRICE.search(text)
    assert found is not None and found.group(0).strip() == price


def test_a_tax_rate_is_no_amount_of_money() -> None:
    assert [a.text for a in amounts_in("SALES TAX 8.25% 3.98")] == ["3.98"]
    assert amounts_in("TAX 8.25 %") == []
