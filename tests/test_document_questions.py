"""Document questions in many wordings: which field they ask for, that they reach the OCR skill's key-information
sub-skill, and that questions for the other skills still go where they went."""

from __future__ import annotations

import pytest

from agents.registry import load_registry
from agents.routing.skill_inference import infer_skills
from skills.document_questions import DEFAULT_MIN_CONFIDENCE, document_field, settle
from skills.runner import choose_level2

RECEIPT_WORDINGS = [
    ("How much was paid in total?", "total"), ("What is the grand total on the receipt?", "total"),
    ("How much did I pay?", "total"), ("What's the amount due?", "total"), ("What was the total bill?", "total"),
    ("How much did this cost in total?", "total"), ("What is the total including GST?", "total"),
    ("When was this purchase made?", "date"), ("Which date is printed on the receipt?", "date"),
    ("What day was this bought?", "date"), ("When did I buy this?", "date"), ("Date of purchase?", "date"),
    ("Which business issued this receipt?", "company"), ("What is the seller's name?", "company"),
    ("Which shop is this from?", "company"), ("Name of the store?", "company"), ("Who issued this receipt?", "company"),
    ("Which company sold this?", "company"), ("What is the name of the cafe?", "company"),
    ("What is this bakery called?", "company"), ("What is the pharmacy's address?", "address"),
    ("Where is the shop located?", "address"), ("What is the seller's address?", "address"),
    ("Store address?", "address"), ("Where is the store?", "address"), ("Where is this business located?", "address"),
    ("What is the invoice number?", "invoice number"), ("Who was the cashier?", "cashier"),
    ("How much change did I get?", "change"), ("How much tax was charged?", "tax"), ("What is the GST amount?", "tax"),
    ("What is the total before tax?", "subtotal"),
    # After a deposit, what is left to pay is the balance, not the total (a dry-cleaning ticket's £41.50 total had
    # answered "how much do i still owe", whose answer was the £31.50 balance).
    ("how much do i still owe", "balance"), ("whats left to pay", "balance"),
    ("how much do i still have to pay", "balance"), ("how much do I owe?", "total"),
]


@pytest.mark.parametrize(("question", "field"), RECEIPT_WORDINGS)
def test_receipt_questions_name_their_field(question: str, field: str) -> None:
    asked = document_field(question)
    assert asked is not None and asked.field == field


@pytest.mark.parametrize("question", ["What is written on the sign?", "What does the sign say?",
                                      "Transcribe the text.", "What word is written on the orange label?",
                                      "Which bar is the tallest?", "Which market has the largest share?"])
def test_transcription_questions_name_no_field(question: str) -> None:
    assert document_field(question) is None


@pytest.fixture(scope="module")
def registry():  # noqa: ANN201 - agents.registry.Registry
    return load_registry()


@pytest.mark.parametrize(("question", "_field"), RECEIPT_WORDINGS)
def test_receipt_questions_reach_key_information_extraction(registry, question: str, _field: str) -> None:
    guess = infer_skills(question, [s.spec for s in registry.skills])[0]
    assert guess.skill == "OCR", (question, guess)
    level2 = choose_level2(registry.skill("OCR").spec.level2, question).level2
    assert level2.id == "key_information_extraction", (question, level2.id)


@pytest.mark.parametrize(("question", "skill"), [
    ("Count total number of squares in the image. Answer with only the number in numerical format in curly "
     "brackets e.g. {3}.", "Counting"),
    ("How many circles are there in total?", "Counting"),
    ("How many people are in the store?", "Counting"),
    ("How many rows and columns are in the table? Answer with only the numbers in a pair (row, column), e.g., (5,6)",
     "Diagram-Reasoning"),
    ("Count the intersection points where the blue and red lines meet. Put your answer in curly brackets, e.g., {2}.",
     "Diagram-Reasoning"),
    ("Which company has the largest share in the pie chart?", "Chart"),
    ("What is the total value of the bars in the chart?", "Chart"),
    ("Which date has the highest value in the line chart?", "Chart"),
    ("Where is the red pentagon? Answer with the quadrant.", "Perception"),
    ("Where is the object located in the image?", "Perception"),
    ("What color is the car parked next to the store?", "Perception"),
])
def test_other_skills_keep_their_questions(registry, question: str, skill: str) -> None:
    assert infer_skills(question, [s.spec for s in registry.skills])[0].skill == skill


def test_settle_answers_only_above_the_threshold_and_says_what_is_missing() -> None:
    assert settle("RM 14.10", 0.93, None, "total").answer == "RM 14.10"
    low = settle("RM 14.10", DEFAULT_MIN_CONFIDENCE - 0.01, None, "total")
    assert low.answer is None and "not certain enough" in low.missing and low.confidence is not None
    none = settle(None, 0.0, "no amount next to a 'total' label", "total")
    assert none.answer is None and none.missing == "no amount next to a 'total' label"
