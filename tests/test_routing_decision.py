"""The routing decision is one type: policies make it, the step stores its dict, readers get the same decision back."""

from __future__ import annotations

from agents.routing.decision import RoutingDecision


def test_a_router_decision_survives_its_stored_form() -> None:
    decision = RoutingDecision(policy="router", expert="Tools", skill="OCR", level2="read", skill_reason="keyword",
                               expert_reason="posterior mean", cost_weight=0.3, explore=False,
                               skill_scores={"OCR": {"score": 0.9}},
                               candidates=[{"expert": "Tools", "score": 0.7}])
    stored = decision.to_dict()
    assert stored["lambda"] == 0.3 and "cost_weight" not in stored  # the stored key runs have always had
    assert stored["explore"] is False  # a recorded "no" is kept; only unset fields are left out
    assert "skill_method" not in stored and "extra" not in stored
    assert RoutingDecision.from_dict(stored) == decision


def test_keys_without_a_field_are_kept_in_extra_and_written_back() -> None:
    stored = {"policy": "vlm", "orchestrator": "Qwen3-VL", "temperature": 0.7}
    decision = RoutingDecision.from_dict(stored)
    assert decision is not None and decision.policy == "vlm" and decision.expert is None
    assert decision.extra == {"orchestrator": "Qwen3-VL", "temperature": 0.7}
    assert decision.to_dict() == stored


def test_nothing_recorded_is_no_decision() -> None:
    assert RoutingDecision.from_dict({}) is None
    assert RoutingDecision.from_dict(None) is None
    assert RoutingDecision.from_dict(["not", "a", "dict"]) is None  # type: ignore[arg-type]
    assert RoutingDecision.from_dict({"why": "text"}) == RoutingDecision(policy="", extra={"why": "text"})
