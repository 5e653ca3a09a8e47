"""Storage round trips, filters, pagination, ratings, image store and migrations, each on a real SQLite file and
on a real PostgreSQL database (the ``db_url`` fixture runs every test that takes it once per back end)."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from PIL import Image, ImageDraw, ImageFont
from sqlalchemy import inspect, text

from storage import (
    DatabaseUnavailable,
    DatasetItem,
    Step,
    Store,
    ToolCall,
    default_data_dir,
    migrate,
    open_store,
)
from storage.db import alembic_config
from storage.models import Base

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def sign(text: str, size: tuple[int, int] = (240, 80)) -> Image.Image:
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).text((10, 20), text, fill="black", font=ImageFont.truetype(FONT, 28))
    return image


@pytest.fixture
def store(data_dir: Path, db_url: str | None) -> Iterator[Store]:
    with open_store(data_dir, db_url) as opened:
        yield opened


def search_step(index: int, model: str, skill: str, **extra: object) -> Step:
    return Step(index=index, kind="search", raw_text=f"<search>{model}@@{skill}: q{index}</search>",
                      model=model, skill=skill, query=f"q{index}", observation=f"obs {index}", **extra)


def make_run(store: Store, question: str, pairs: list[tuple[str, str]], *, status: str = "done",
             answer: str = "a", dataset: str | None = None) -> str:
    run_id = store.create_run(question=question, image_id="0" * 64, policy="keyword", registry_hash="h",
                              config={}, dataset=dataset)
    for i, (model, skill) in enumerate(pairs):
        store.add_step(run_id, search_step(i, model, skill))
    if status != "running":
        store.finish_run(run_id, status=status, answer=answer if status == "done" else None, latency_ms=10.0,
                         reason=None if status == "done" else f"{status} for a test")
    return run_id


def test_run_round_trip_keeps_every_field_in_order(store: Store) -> None:
    image = store.images.put_image(sign("EXIT 42"))
    crop = store.images.put_image(sign("42", (60, 40)))
    run_id = store.create_run(question="What number is on the sign?", image_id=image.id, policy="vlm:qwen",
                              registry_hash="reg-1", config={"max_turns": 6, "experts": ["ocr", "vlm"]},
                              dataset="signs", item_id="s-1", expected="42")
    assert store.get_run(run_id).status == "running"  # the row exists from the first moment

    think = Step(index=0, kind="think", raw_text="<think>read it</think>", think="read it", policy_ms=3.5,
                       tokens_in=120, tokens_out=9)
    search = search_step(1, "RapidOCR", "OCR", level2="line_reading", level2_reason="single line",
                         latency_ms=44.0, tool_ms=40.0, expert_ms=2.0, routing={"why": "text", "scores": [0.9, 0.1]},
                         artifacts=[crop.id],
                         tool_calls=[ToolCall(0, "ocr.read", {"box": [1, 2, 3, 4]}, "EXIT 42", 38.0,
                                                    image_id=crop.id, data={"lines": [["EXIT", 0.99]]}),
                                     ToolCall(1, "zoom", {"factor": 2}, "", 1.0, error="too small")])
    answer = Step(index=2, kind="answer", raw_text="<answer>42</answer>", answer="42", status="forced")
    step_ids = [store.add_step(run_id, step) for step in (think, search, answer)]
    assert step_ids == sorted(set(step_ids)) and search.id == step_ids[1] and search.created_at is not None
    store.finish_run(run_id, status="done", answer="42", latency_ms=123.4, tokens_in=300, tokens_out=20,
                     cost=0.002, forced_answer=True)

    record = store.get_run(run_id)
    assert (record.question, record.image_id, record.policy, record.registry_hash) == (
        "What number is on the sign?", image.id, "vlm:qwen", "reg-1")
    assert (record.status, record.answer, record.latency_ms, record.tokens_in, record.tokens_out) == (
        "done", "42", 123.4, 300, 20)
    assert record.cost == pytest.approx(0.002) and record.forced_answer is True
    assert record.config == {"max_turns": 6, "experts": ["ocr", "vlm"]}
    assert (record.dataset, record.item_id, record.expected) == ("signs", "s-1", "42")
    assert record.finished_at >= record.created_at and record.created_at.tzinfo is not None
    assert [s.kind for s in record.steps] == ["think", "search", "answer"]
    got = record.steps[1]
    assert (got.model, got.skill, got.level2, got.level2_reason) == ("RapidOCR", "OCR", "line_reading", "single line")
    assert got.routing == {"why": "text", "scores": [0.9, 0.1]} and got.artifacts == [crop.id]
    assert [(c.index, c.tool, c.summary, c.error) for c in got.tool_calls] == [
        (0, "ocr.read", "EXIT 42", None), (1, "zoom", "", "too small")]
    assert got.tool_calls[0].data == {"lines": [["EXIT", 0.99]]} and got.tool_calls[0].args == {"box": [1, 2, 3, 4]}
    assert record.steps[2].status == "forced" and record.steps[0].tokens_in == 120
    assert store.images.open(got.tool_calls[0].image_id).size == (60, 40)
    assert store.get_run("f" * 32) is None


def test_odd_values_from_tools_and_images_are_stored_not_refused(store: Store) -> None:
    run_id = make_run(store, "odd?", [], status="running")
    weird_text = "bad \udc80 surrogate, NUL \x00 inside, emoji 🚦, right-to-left \u202e"
    step = Step(index=0, kind="search", observation=weird_text, model="m", skill="OCR",
                      routing={"score": np.float32(0.5), "boxes": np.array([[1, 2], [3, 4]]), (1, 2): "tuple key",
                               "path": Path("/x/y"), "nan": float("nan"), "set": {3, 1}},
                      tool_calls=[ToolCall(0, "t", {"img": b"\x89PNG"}, weird_text, 1.0)])
    store.add_step(run_id, step)
    got = store.get_run(run_id).steps[0]
    # PostgreSQL text cannot hold NUL: there it is kept as the visible escape; SQLite keeps the character.
    nul = "\\x00" if store.engine.dialect.name == "postgresql" else "\x00"
    assert f"NUL {nul} inside, emoji 🚦" in got.observation and "\\udc80" in got.observation
    assert f"NUL {nul} inside" in got.tool_calls[0].summary
    assert got.routing["score"] == 0.5 and got.routing["boxes"] == [[1, 2], [3, 4]]
    assert got.routing["(1, 2)"] == "tuple key" and got.routing["path"] == "/x/y" and got.routing["set"] == [1, 3]
    assert got.routing["nan"] == "nan" and got.tool_calls[0].args == {"img": "\\x89PNG"}


def test_names_longer_than_their_column_are_cut_alike_on_every_back_end(store: Store) -> None:
    """A made-up expert name or a long item id never makes a write fail (PostgreSQL enforces lengths); distinct
    long values stay distinct and a lookup by the long value finds its row."""
    long_a, long_b = "Expert-" + "x" * 400 + "A", "Expert-" + "x" * 400 + "B"
    run_id = store.create_run(question="long?", image_id="0" * 64, policy="p" * 300, registry_hash="h",
                              config={}, dataset="d" * 250, item_id="i" * 250)
    store.add_step(run_id, search_step(0, long_a, "S" * 300, level2="L" * 300,
                                       tool_calls=[ToolCall(0, "t" * 300, {}, "", 1.0)]))
    store.add_step(run_id, search_step(1, long_b, "OCR"))
    with pytest.raises(ValueError, match="rater names are at most 200"):  # attribution is never cut short
        store.add_rating(run_id, rater="r" * 300, verdict="correct")
    store.add_rating(run_id, rater="r" * 200, verdict="correct")
    record = store.get_run(run_id)
    models = [s.model for s in record.steps]
    assert all(len(m) == 200 for m in models) and models[0] != models[1] and models[0].startswith("Expert-xxx")
    assert len(record.policy) == 200 and len(record.dataset) == 200 and len(record.ratings[0].rater) == 200
    assert [r.id for r in store.list_runs(model=long_a)] == [run_id]
    assert [r.id for r in store.list_runs(dataset="d" * 250)] == [run_id]
    assert store.save_dataset("n" * 300, [DatasetItem("i" * 250, "q"), DatasetItem("i" * 249 + "j", "q")]) == 2
    assert {i.item_id[:5] for i in store.dataset_items("n" * 300)} == {"iiiii"}


def test_bad_steps_are_refused_and_change_nothing(store: Store) -> None:
    run_id = make_run(store, "q", [("m", "OCR")], status="running")
    with pytest.raises(ValueError, match="step kind"):
        store.add_step(run_id, Step(index=1, kind="shout"))
    with pytest.raises(ValueError, match="already has a step 0"):
        store.add_step(run_id, search_step(0, "other", "Count"))
    with pytest.raises(KeyError):
        store.add_step("nope", search_step(1, "m", "OCR"))
    with pytest.raises(ValueError, match="run status"):
        store.finish_run(run_id, status="running", answer=None, latency_ms=1)
    with pytest.raises(KeyError):
        store.finish_run("nope", status="done", answer="x", latency_ms=1)
    record = store.get_run(run_id)
    assert [(s.index, s.model) for s in record.steps] == [(0, "m")] and record.status == "running"


def test_filters_and_pagination(store: Store) -> None:
    ids = {
        "ocr": make_run(store, "Read the sign", [("RapidOCR", "OCR")], answer="EXIT"),
        "count": make_run(store, "How many circles?", [("Qwen", "Counting")], answer="5", dataset="blind"),
        "both": make_run(store, "Count words 100%_done", [("RapidOCR", "OCR"), ("Qwen", "Counting")], answer="3"),
        "failed": make_run(store, "Broken", [("Qwen", "Chart")], status="failed", answer=""),
        "running": make_run(store, "Still going", [], status="running"),
    }
    store.add_rating(ids["ocr"], rater="ann", verdict="incorrect")
    store.add_rating(ids["ocr"], rater="bob", verdict="correct")  # the latest verdict counts
    store.add_rating(ids["count"], rater="ann", verdict="partial")
    store.add_rating(ids["both"], rater="ann", verdict="incorrect", step_index=1)  # step ratings leave it unrated

    def listed(**filters: str) -> set[str]:
        rows = store.list_runs(limit=100, **filters)
        assert store.count_runs(**filters) == len(rows)
        return {r.id for r in rows}

    assert listed() == set(ids.values())
    assert listed(skill="OCR") == {ids["ocr"], ids["both"]}
    assert listed(model="Qwen") == {ids["count"], ids["both"], ids["failed"]}
    assert listed(model="Qwen", skill="OCR") == {ids["both"]}
    assert listed(status="failed") == {ids["failed"]}
    assert listed(rating="correct") == {ids["ocr"]} and listed(rating="incorrect") == set()
    assert listed(rating="partial") == {ids["count"]}
    assert listed(rating="unrated") == {ids["both"], ids["failed"], ids["running"]}
    assert listed(text="CIRCLES") == {ids["count"]} and listed(text="exit") == {ids["ocr"]}
    assert listed(text="100%_") == {ids["both"]} and listed(text="%") == {ids["both"]}  # wildcards are literal
    assert listed(dataset="blind") == {ids["count"]}
    with pytest.raises(ValueError):
        store.list_runs(rating="great")

    row = next(r for r in store.list_runs() if r.id == ids["both"])
    assert list(zip(row.models, row.skills, strict=True)) == [("RapidOCR", "OCR"), ("Qwen", "Counting")]
    assert next(r for r in store.list_runs() if r.id == ids["ocr"]).rating == "correct"

    newest_first = [r.id for r in store.list_runs(limit=100)]
    assert newest_first == list(reversed(list(ids.values())))
    pages = [store.list_runs(limit=2, offset=o) for o in (0, 2, 4, 6)]
    assert [len(p) for p in pages] == [2, 2, 1, 0]
    assert [r.id for p in pages for r in p] == newest_first


def test_ratings_are_validated_and_nothing_is_written_on_bad_input(store: Store) -> None:
    run_id = make_run(store, "q", [("m", "OCR")])
    for bad in (dict(verdict="great"), dict(verdict="correct", score=float("nan")), dict(verdict="correct", rater=""),
                dict(verdict="correct", step_index=7), dict(verdict="correct", step_marks=["x"]),
                dict(verdict="correct", score="high")):
        with pytest.raises(ValueError):
            store.add_rating(run_id, **{"rater": "ann", **bad})
    with pytest.raises(KeyError):
        store.add_rating("missing", rater="ann", verdict="correct")
    assert store.ratings_for(run_id) == []

    first = store.add_rating(run_id, rater=" ann ", verdict="partial", score=0.5, corrected_answer="EXIT 42",
                             comment="half right", step_index=0, step_marks={"0": "ok"})
    second = store.add_rating(run_id, rater="bob", verdict="correct")
    ratings = store.ratings_for(run_id)
    assert [r.id for r in ratings] == [first, second]
    assert (ratings[0].rater, ratings[0].score, ratings[0].corrected_answer, ratings[0].step_marks) == (
        "ann", 0.5, "EXIT 42", {"0": "ok"})
    assert store.get_run(run_id).ratings == ratings


def test_unrated_queue_holds_finished_unrated_runs_oldest_first(store: Store) -> None:
    a = make_run(store, "a", [])
    b = make_run(store, "b", [])
    make_run(store, "failed", [], status="failed")
    make_run(store, "running", [], status="running")
    c = make_run(store, "c", [])
    store.add_rating(b, rater="ann", verdict="correct")
    assert [r.id for r in store.unrated_runs()] == [a, c]
    assert {r.id for r in store.unrated_runs(order="random")} == {a, c}
    assert [r.id for r in store.unrated_runs(limit=1)] == [a]
    with pytest.raises(ValueError):
        store.unrated_runs(order="newest")


def test_images_are_stored_once_and_keep_upload_bytes(store: Store, blindtest_dir: Path) -> None:
    original = next(p for p in sorted(blindtest_dir.rglob("*")) if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
    data = original.read_bytes()
    first, again = store.images.put_bytes(data), store.images.put_bytes(data)
    assert first == again and first.id == hashlib.sha256(data).hexdigest()
    assert store.images.path(first.id).read_bytes() == data
    with Image.open(original) as expected:
        assert (first.width, first.height) == expected.size
        assert np.array_equal(np.asarray(store.images.open(first.id)), np.asarray(expected))

    a1, a2 = store.images.put_image(sign("A")), store.images.put_image(sign("A"))
    b = store.images.put_image(sign("B"))
    assert a1.id == a2.id != b.id and a1.path.suffix == ".png"
    files = [p for p in (store.data_dir / "images").rglob("*") if p.is_file()]
    assert sorted(files) == sorted({first.path, a1.path, b.path})
    assert store.image_info(a1.id).width == 240 and store.image_info("1" * 64) is None

    for mode in ("F", "CMYK", "LA", "I;16"):  # modes PNG cannot hold directly still store
        ref = store.images.put_image(sign("m").convert("L").convert(mode))
        assert store.images.open(ref.id).size == (240, 80)


def test_image_ids_cannot_escape_the_store(store: Store) -> None:
    ref = store.images.put_image(sign("x"))
    for bad in ("../../etc/passwd", ref.id.upper(), ref.id[:-1], ref.id + "0", f"{ref.id[:10]}/../{ref.id[13:]}",
                "/" + ref.id[1:], ref.id[:-1] + "\x00", "", None):
        with pytest.raises(ValueError):
            store.images.path(bad)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        store.images.path("a" * 64)


def test_undecodable_bytes_are_refused_without_a_file(store: Store) -> None:
    png = io.BytesIO()
    sign("cut").save(png, format="PNG")
    for bad in (b"", b"not an image at all", png.getvalue()[:60]):
        with pytest.raises(ValueError):
            store.images.put_bytes(bad)
    assert [p for p in (store.data_dir / "images").rglob("*") if p.is_file()] == []


def test_migrations_build_the_schema_from_empty_and_are_idempotent(data_dir: Path, db_url: str | None) -> None:
    assert default_data_dir() == data_dir  # MAESTRO_HOME is honoured
    with open_store(None, db_url) as store:  # upgrade to head from an empty database
        assert store.data_dir == data_dir
        run_id = make_run(store, "kept", [("m", "s")])
        with store.engine.connect() as conn:
            # The models and the migrations describe the same schema on this back end (types, indexes, keys).
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
            assert set(Base.metadata.tables) | {"alembic_version"} == set(inspect(conn).get_table_names())
            heads = ScriptDirectory.from_config(alembic_config(store.url)).get_heads()
            assert conn.execute(text("select version_num from alembic_version")).all() == [(h,) for h in heads]
            assert len(heads) == 1  # one linear history: a second head means two migrations forked
            if store.engine.dialect.name == "sqlite":
                assert (data_dir / "maestro.db").is_file()
                assert conn.execute(text("pragma journal_mode")).one() == ("wal",)
        assert migrate(store.engine) is False  # already at head: nothing to do
    with open_store(data_dir, db_url) as again:  # a second start keeps the data
        assert again.get_run(run_id).steps[0].model == "m"


def test_migrations_go_down_to_empty_and_up_again(data_dir: Path, db_url: str | None) -> None:
    with open_store(data_dir, db_url) as store:
        cfg = alembic_config(store.url)
        command.downgrade(cfg, "base")
        with store.engine.connect() as conn:
            assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
        assert migrate(store.engine) is True
        with store.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        assert store.get_run(make_run(store, "again", [])).question == "again"


def test_any_sqlalchemy_url_by_option(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere" / "runs.sqlite"
    other.parent.mkdir()
    with open_store(tmp_path / "home", db_url=f"sqlite:///{other}") as store:
        run_id = make_run(store, "where?", [])
    assert other.is_file() and not (tmp_path / "home" / "maestro.db").exists()
    with sqlite3.connect(other) as conn:
        assert conn.execute("select question from runs where id=?", (run_id,)).fetchone() == ("where?",)
    with open_store(tmp_path / "mem", db_url="sqlite://") as memory:  # in-memory: one shared connection
        assert memory.get_run(make_run(memory, "in memory", [])).question == "in memory"


def test_an_unusable_database_url_is_one_clear_line_without_the_password(tmp_path: Path) -> None:
    cases = {f"postgresql+psycopg://ann:s3cret@/maestro?host={tmp_path / 'no-server'}": "No such file",
             "mysql://ann:s3cret@db/maestro": "driver is not installed", "no url at all": "malformed URL"}
    for url, why in cases.items():
        with pytest.raises(DatabaseUnavailable) as caught:
            open_store(tmp_path / "home", db_url=url)
        message = str(caught.value)
        assert message.startswith("cannot open database") and why in message and "s3cret" not in message
        assert "\n" not in message


def test_datasets_upsert_items_by_id(store: Store) -> None:
    image = store.images.put_image(sign("7"))
    items = [DatasetItem("1", "How many?", "7", image.id, "counting", {"source": "rendered"}),
             DatasetItem("2", "What colour?", "red", None, "colour")]
    assert store.save_dataset("dev", items, description="tiny") == 2
    assert store.save_dataset("dev", [DatasetItem("2", "What colour is it?", "blue")]) == 2
    got = {i.item_id: i for i in store.dataset_items("dev")}
    assert got["1"].extra == {"source": "rendered"} and got["1"].image_id == image.id
    assert (got["2"].question, got["2"].answer) == ("What colour is it?", "blue")
    assert store.list_datasets() == ["dev"] and store.dataset_items("nope") == []
    with pytest.raises(ValueError):
        store.save_dataset("dup", [DatasetItem("1", "a"), DatasetItem("1", "b")])
    assert store.list_datasets() == ["dev"]


def test_records_serialise_to_json(store: Store) -> None:
    from dataclasses import asdict

    run_id = make_run(store, "json", [("m", "s")])
    text = json.dumps(asdict(store.get_run(run_id)), default=str)
    assert json.loads(text)["steps"][0]["skill"] == "s"


def test_upgrading_moves_violations_and_settled_answers_out_of_the_routing_json(tmp_path: Path) -> None:
    from alembic import command
    from sqlalchemy import create_engine, text

    from storage.db import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0002_handbook")  # a database as the previous release left it
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO runs (id, created_at, question, image_id, policy, registry_hash, status, "
                          "tokens_in, tokens_out, cost, forced_answer, config) VALUES ('r1', '2026-11-20', 'q', "
                          "'img', 'keyword', 'h', 'done', 0, 0, 0, 0, '{}')"))
        conn.execute(text("INSERT INTO steps (run_id, \"index\", kind, raw_text, status, latency_ms, policy_ms, "
                          "tool_ms, expert_ms, tokens_in, tokens_out, routing, artifacts, created_at) VALUES ('r1', "
                          "0, 'search', '', 'ok', 0, 0, 0, 0, 0, 0, :routing, '[]', '2026-11-20')"),
                     {"routing": json.dumps({"policy": "keyword", "violations": ["think_count: 0"],
                                             "settled_answer": "42"})})
    engine.dispose()
    store = open_store(tmp_path, url)  # upgrades to the newest revision
    step = store.get_run("r1").steps[0]
    assert step.violations == ["think_count: 0"] and step.settled_answer == "42"
    assert step.routing == {"policy": "keyword"}
