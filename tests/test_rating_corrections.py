"""An "incorrect" verdict asks for the right answer, with an explicit way to say it is not known: in the Rate
form (``submit_rating``, the function the Save button calls) and in ``maestro rate`` (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.config import Settings
from agents.runtime import Maestro
from storage import open_store
from tests.test_cli_rate import EXAMPLES, maestro
from ui.web_rate import submit_rating


def test_the_form_asks_for_a_correction_or_no_correction_known(tmp_path: Path) -> None:
    app = Maestro.open(Settings.resolve(data_dir=tmp_path / "home"))
    run_id = app.ask(EXAMPLES / "sign.png", "What is written on the sign?").id
    line = submit_rating(app, run_id, "incorrect", "  ", [], "", "ann")
    assert "type the right answer" in line and "No correction known" in line
    assert app.store.ratings_for(run_id) == []  # nothing was saved silently
    line = submit_rating(app, run_id, "incorrect", "NO PARKING", [], "", "ann", no_correction=True)
    assert "keep one of them" in line and app.store.ratings_for(run_id) == []
    assert submit_rating(app, run_id, "incorrect", "", [], "", "ann", no_correction=True).startswith("Saved")
    [rating] = app.store.ratings_for(run_id)
    assert (rating.verdict, rating.corrected_answer) == ("incorrect", None)
    assert submit_rating(app, run_id, "incorrect", "NO PARKING", [], "", "bob").startswith("Saved")
    # A step's verdict needs no correction; a correct verdict none either.
    assert submit_rating(app, run_id, "incorrect", "", [], "", "ann", step_index=0).startswith("Saved")
    assert submit_rating(app, run_id, "correct", "", [], "", "cy").startswith("Saved")
    app.store.close()


@pytest.mark.slow
def test_maestro_rate_needs_a_correction_or_no_correction(runs: tuple[Path, list[str]], tmp_path: Path) -> None:
    home, (sign, shapes) = runs
    out = maestro("rate", sign, "--verdict", "incorrect", home=home)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--correction TEXT or --no-correction" in out.stderr
    out = maestro("rate", sign, "--verdict", "incorrect", "--correction", "X", "--no-correction", home=home)
    assert out.returncode == 2 and "give one of them" in out.stderr
    out = maestro("rate", sign, "--verdict", "incorrect", "--no-correction", "--json", home=home)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["corrected_answer"] is None
    lines = tmp_path / "ratings.jsonl"
    lines.write_text(json.dumps({"run_id": shapes, "verdict": "correct"}) + "\n"
                     + json.dumps({"run_id": shapes, "verdict": "incorrect", "rater": "bulk"}) + "\n")
    out = maestro("rate", "--from", str(lines), home=home)
    assert out.returncode == 2 and "line 2" in out.stderr and '"no_correction": true' in out.stderr
    lines.write_text(json.dumps({"run_id": shapes, "verdict": "incorrect", "no_correction": True}) + "\n")
    assert maestro("rate", "--from", str(lines), home=home).returncode == 0
    with open_store(home) as store:
        assert [(r.verdict, r.corrected_answer) for r in store.ratings_for(shapes)] == [("incorrect", None)]


@pytest.mark.slow
def test_the_served_rate_form_passes_no_correction_known(data_dir: Path) -> None:
    from tests.test_web_api import Served

    served = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    try:
        run_id = served.maestro.ask(EXAMPLES / "sign.png", "What is written on the sign?").id
        client = served.client()
        anyf = ("(any)",) * 4
        assert client.predict(*anyf, "oldest", api_name="/rate_next")[0] == run_id
        out = client.predict(run_id, "incorrect", "", [], "", *anyf, "oldest", False, api_name="/rate_save")
        assert "No correction known" in out[0] and served.maestro.store.ratings_for(run_id) == []
        out = client.predict(run_id, "incorrect", "", [], "", *anyf, "oldest", True, api_name="/rate_save")
        assert out[0].startswith("Saved **incorrect**")
        [rating] = served.maestro.store.ratings_for(run_id)
        assert (rating.verdict, rating.corrected_answer) == ("incorrect", None)
    finally:
        served.close()
