"""The web application through its HTTP API (gradio_client against a real server on a free port): asking streams
and stores a run, replay renders it identically, ratings land in storage under the login name, filters and
pages work, bad input becomes a chat message, oversized uploads are refused, a run in flight never holds up
rating or browsing, a chosen pair shows as a titled pending step while its skill runs, each step says why it was
routed there, the Export endpoint writes training files with a manifest and serves them as a zip, and the Handbook
endpoint shows what a rating taught the router."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client, handle_file
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.policies.base import ScriptedPolicy
from agents.policies.router import RouterPolicy
from agents.runtime import Maestro
from storage import Step
from tests.calibrations import trust_source
from tests.local_http import JsonHandler, models_reply, refused_url, serve
from ui import render
from ui.web import launch
from ui.web_rate import parse_marks
from vision_tools.image.loading import MAX_BYTES

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SIGN_QUESTION = "What is written on the sign?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def sign_png(tmp_path: Path) -> Path:
    """A street sign with one word on it, drawn with DejaVu."""
    image = Image.new("RGB", (480, 240), (210, 225, 240))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((40, 50, 440, 190), radius=12, fill=(20, 110, 60))
    draw.text((240, 120), "BAKERY", font=ImageFont.truetype(FONT, 64), fill=(255, 255, 255), anchor="mm")
    path = tmp_path / "sign.png"
    image.save(path)
    return path


class Served:
    def __init__(self, maestro: Maestro, auth: str | None = None) -> None:
        self.maestro = maestro
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.app = launch(port=self.port, auth=auth, prevent_thread_lock=True, maestro=maestro)

    def client(self, auth: tuple[str, str] | None = None) -> Client:
        return Client(self.url, auth=auth, verbose=False)

    def close(self) -> None:
        self.app.close()
        self.maestro.store.close()


@pytest.fixture
def served(data_dir: Path) -> Iterator[Served]:
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    yield server
    server.close()


@pytest.fixture
def served_on_each_db(data_dir: Path, db_url: str | None) -> Iterator[Served]:
    """The app served once on a SQLite file and once on a PostgreSQL database (``db_url``)."""
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db_url)))
    yield server
    server.close()


def texts(message: dict[str, Any]) -> str:
    return "\n".join(part.get("text", "") for part in message["content"] if part.get("type") == "text")


def file_hashes(message: dict[str, Any]) -> list[str]:
    return [hashlib.sha256(Path(part["file"]).read_bytes()).hexdigest()
            for part in message["content"] if part.get("type") == "file"]


def normalised(chat: list[dict[str, Any]]) -> list[Any]:
    """A chat with each file replaced by the hash of its bytes, so two downloads of one image compare equal."""
    return [(m["role"], m["metadata"], texts(m), file_hashes(m)) for m in chat]


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_ask_streams_the_steps_and_stores_the_run(served: Served, sign_png: Path) -> None:
    job = served.client().submit(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/ask")
    chat, run_id, _ = job.result(timeout=120)
    updates = job.outputs()
    assert len(updates) >= 3, "the run should stream: question first, then steps, then the answer"
    first_chat = updates[0][0]
    assert unescape(texts(first_chat[0])) == SIGN_QUESTION
    assert first_chat[-1]["metadata"].get("status") == "pending"

    record = served.maestro.store.get_run(run_id)
    assert record is not None and record.status == "done" and record.question == SIGN_QUESTION
    step_messages = [m for m in chat if str(m["metadata"].get("id", "")).startswith("step-")
                     and "-tool-" not in str(m["metadata"]["id"])]
    assert [m["metadata"]["id"] for m in step_messages] == [f"step-{s.index}" for s in record.steps]
    for message, step in zip(step_messages, record.steps, strict=True):
        assert message["metadata"]["status"] == "done"
        if step.kind == "search":
            assert f"{step.model}@@{step.skill}" in message["metadata"]["title"]
    assert file_hashes(chat[1]) == [record.image_id], "the user's image is the stored original, byte for byte"
    shown = {h for m in chat for h in file_hashes(m)}
    for step in record.steps:
        for call in step.tool_calls:
            if call.image_id:
                assert call.image_id in shown, f"evidence image of {call.tool} is not in the chat"
    assert record.answer is not None and record.answer in unescape(texts(chat[-1]))
    assert not chat[-1]["metadata"], "the final answer is a plain message, not a collapsed step"


def test_replay_renders_exactly_what_was_shown_live(served: Served, sign_png: Path) -> None:
    client = served.client()
    live, run_id, _ = client.predict(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/ask")
    replayed, info = client.predict(run_id, api_name="/replay")
    assert normalised(replayed) == normalised(live)
    assert run_id in info and "not rated yet" in info
    missing, why = client.predict("../../etc/passwd", api_name="/replay")
    assert missing == [] and "Not a run id" in why


def test_thumbs_save_a_rating_under_the_login_name(data_dir: Path, db_url: str | None, sign_png: Path) -> None:
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db_url)), auth="alice:s3cret:pw")
    try:
        with pytest.raises(Exception):  # noqa: B017 - any refusal will do: without the password there is no app
            Client(server.url, verbose=False).predict(handle_file(str(sign_png)), "q?", api_name="/ask")
        client = server.client(auth=("alice", "s3cret:pw"))
        _, run_id, _ = client.predict(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/ask")
        line = client.predict(run_id, "BAKERY", api_name="/rate_incorrect")
        assert line.startswith("Saved")
        client.predict(run_id, "", api_name="/rate_correct")
        store = server.maestro.store
        ratings = store.ratings_for(run_id)
        assert [(r.verdict, r.rater, r.corrected_answer) for r in ratings] == [("correct", "alice", None)], \
            "rating again edits alice's rating: one live row"
        assert [(v.verdict, v.rater, v.corrected_answer) for v in store.rating_history(run_id)] == [
            ("incorrect", "alice", "BAKERY")]
        assert "no run to rate" in client.predict("", "", api_name="/rate_correct")
    finally:
        server.close()


def test_bad_input_is_a_message_in_the_chat(served: Served, sign_png: Path, tmp_path: Path) -> None:
    client = served.client()
    chat, run_id, _ = client.predict(handle_file(str(sign_png)), "   ", api_name="/ask")
    assert run_id == "" and "Type a question" in texts(chat[-1])
    chat, run_id, _ = client.predict(None, SIGN_QUESTION, api_name="/ask")
    assert run_id == "" and "Upload or paste an image" in texts(chat[-1])
    too_long = "why? " * 1000
    chat, run_id, _ = client.predict(handle_file(str(sign_png)), too_long, api_name="/ask")
    assert run_id == "" and "question too long" in unescape(texts(chat[-1]))
    assert "Traceback" not in json.dumps(chat)
    assert served.maestro.store.count_runs() == 0


def test_uploads_above_the_limit_are_refused(served: Served) -> None:
    big = b"\x89PNG\r\n\x1a\n" + b"\0" * (MAX_BYTES + 1024)
    response = httpx.post(f"{served.url}gradio_api/upload", files={"files": ("big.png", big, "image/png")},
                          timeout=60)
    assert response.status_code == 413, response.text[:200]
    small = httpx.post(f"{served.url}gradio_api/upload", files={"files": ("ok.png", big[:1000], "image/png")},
                       timeout=60)
    assert small.status_code == 200


def seed_run(maestro: Maestro, image_id: str, question: str, *, model: str = "Tools", skill: str = "OCR") -> str:
    """A finished run with one search step and an answer, written through the storage API."""
    store = maestro.store
    run_id = store.create_run(question=question, image_id=image_id, policy="keyword", registry_hash="h", config={})
    store.add_step(run_id, Step(index=0, kind="search", model=model, skill=skill, query=question,
                                      observation="seen", latency_ms=5.0))
    store.add_step(run_id, Step(index=1, kind="answer", answer="MAIN STREET", latency_ms=1.0))
    store.finish_run(run_id, status="done", answer="MAIN STREET", latency_ms=6.0)
    return run_id


def test_list_runs_filters_and_pages(served_on_each_db: Served, sign_png: Path) -> None:
    served = served_on_each_db
    maestro = served.maestro
    image_id = maestro.store.images.put_bytes(sign_png.read_bytes()).id
    for i in range(21):
        seed_run(maestro, image_id, f"What is written on sign number {i}?", skill="OCR" if i % 2 else "Chart")
    rated = maestro.ask(sign_png, "Which shop is this? (rated)")
    maestro.store.add_rating(rated.id, rater="bob", verdict="partial")
    runs = maestro.store.count_runs()
    assert runs == 22
    client = served.client()
    rows, page, caption = client.predict("", "(any)", "(any)", "(any)", "(any)", 1, api_name="/list_runs")
    assert caption.startswith("22 runs") and page == 1 and len(rows["data"]) == 20
    assert rows["data"][0][-1] == rated.id, "newest first"
    rows, page, caption = client.predict("", "(any)", "(any)", "(any)", "(any)", 9, api_name="/list_runs")
    assert page == 2 and len(rows["data"]) == 2, "a page past the end shows the last page"
    rows, _, caption = client.predict("sign number 7", "done", "(any)", "(any)", "(any)", 1, api_name="/list_runs")
    assert [r[4] for r in rows["data"]] == ["What is written on sign number 7?"]
    rows, _, _ = client.predict("", "(any)", "(any)", "(any)", "partial", 1, api_name="/list_runs")
    assert [(r[-1], r[2]) for r in rows["data"]] == [(rated.id, "partial")]
    rows, _, caption = client.predict("", "(any)", "(any)", "(any)", "unrated", 1, api_name="/list_runs")
    assert caption.startswith("21 runs")
    rows, _, caption = client.predict("", "(any)", "Chart", "(any)", "unrated", 1, api_name="/list_runs")
    assert caption.startswith("11 runs") and all("Tools@@Chart" in r[3] for r in rows["data"])


def test_rate_queue_saves_verdict_marks_and_comment(served_on_each_db: Served, sign_png: Path) -> None:
    served = served_on_each_db
    maestro = served.maestro
    first = maestro.ask(sign_png, "What is written on the first sign?")
    second = maestro.ask(sign_png, "What is written on the second sign?")
    client = served.client()
    anyf = ("(any)",) * 4
    run_id, chat, header, marks, *rest = client.predict(*anyf, "oldest", api_name="/rate_next")
    assert run_id == first.id and "first sign" in unescape(header)
    assert chat and "0:good call" in [value for _, value in marks["choices"]]
    assert "0 of 2 rated" in rest[-1], "progress of this annotator over the queue's scope"
    line, next_id, *_ = client.predict(run_id, None, "", [], "", *anyf, "oldest", api_name="/rate_save")
    assert line.startswith("Pick a verdict") and maestro.store.ratings_for(first.id) == []
    out = client.predict(run_id, "partial", "MAIN STREET", ["0:wrong skill", "0:bad tool output"],
                         "read the wrong board", *anyf, "oldest", api_name="/rate_save")
    assert out[0].startswith("Saved") and out[1] == second.id, "saving loads the next run in the queue"
    assert out[5]["value"] is None and out[6] == "" and out[7] == "", "the next run starts with an empty form"
    history = out[-3]
    assert history["data"][0][1:4] == ["anonymous", "partial", "What is written on the first sign?"]
    (rating,) = maestro.store.ratings_for(first.id)
    assert rating.step_marks == {"0": ["wrong skill", "bad tool output"]}
    assert (rating.corrected_answer, rating.comment) == ("MAIN STREET", "read the wrong board")
    with pytest.raises(Exception, match="not in the list of choices"):  # the page refuses marks it did not offer
        client.predict(second.id, "correct", "", ["9:bogus"], "", *anyf, "oldest", api_name="/rate_save")
    assert parse_marks(["1:good call", "x:good call", "1:made up", "2"]) == {"1": ["good call"]}
    undone = client.predict(*anyf, api_name="/rate_undo")
    assert undone[0].startswith("Undid your **partial** rating") and undone[1] == first.id
    assert undone[5]["value"] is None and undone[6] == "", "it reopens unrated, ready to rate again"
    assert maestro.store.ratings_for(first.id) == []


class _ModelsHandler(JsonHandler):
    def do_GET(self) -> None:
        self.send_json(*((200, models_reply("served-model")) if self.path.endswith("/models") else (404, {})))


def test_registry_health_and_pair_statistics(data_dir: Path, tmp_path: Path, sign_png: Path) -> None:
    registry = tmp_path / "registry.yaml"
    with serve(_ModelsHandler) as remote:
        registry.write_text(
            "orchestrator: {policy: keyword}\nexperts:\n  - {name: Tools, backend: tools}\n"
            f"  - {{name: Remote, backend: openai, base_url: '{remote}/v1', model: served-model, timeout_s: 2}}\n"
            f"  - {{name: Down, backend: openai, base_url: '{refused_url()}/v1', model: x, timeout_s: 2}}\n",
            encoding="utf-8")
        server = Served(Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=registry)))
        try:
            rows = {r[0]: r for r in server.client().predict(api_name="/registry_health")["data"]}
            assert rows["Tools"][4].endswith("yes")
            assert rows["Remote"][4].endswith("yes") and "serving served-model" in rows["Remote"][6]
            assert rows["Down"][4].endswith("no") and "unreachable" in rows["Down"][6]
            store = server.maestro.store
            runs = [server.maestro.ask(sign_png, SIGN_QUESTION) for _ in range(3)]
            store.add_rating(runs[0].id, rater="a", verdict="correct")
            store.add_rating(runs[1].id, rater="a", verdict="correct")
            store.add_rating(runs[1].id, rater="b", verdict="incorrect")  # the latest verdict counts
            stats = store.pair_stats()
            searches = [(s.model, s.skill) for r in runs for s in r.steps if s.kind == "search"]
            assert sum(p.calls for p in stats) == len(searches)
            top = next(p for p in stats if (p.model, p.skill) == searches[0])
            assert (top.runs, top.rated_runs, top.correct_runs) == (3, 2, 1)
        finally:
            server.close()


def test_rating_and_browsing_do_not_wait_behind_a_run(data_dir: Path, sign_png: Path) -> None:
    policy = ScriptedPolicy(["<think>slow</think><search>Tools@@Sleepy: 6</search>",
                             "<think>done</think><answer>awake</answer>"])
    trust_source(data_dir, ("orchestrator", "unverifiable"))  # its own "awake" may answer, as if rated (trust)
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=FIXTURES / "registry_echo.yaml"),
                           policy=policy)
    server = Served(maestro)
    try:
        store = maestro.store
        earlier = store.create_run(question="an earlier run", image_id=store.images.put_bytes(
            sign_png.read_bytes()).id, policy="scripted", registry_hash="x", config={})
        store.finish_run(earlier, status="done", answer="x", latency_ms=1.0)
        client = server.client()
        job = client.submit(handle_file(str(sign_png)), "sleep please", api_name="/ask")
        for _ in range(200):
            if store.count_runs(status="running"):
                break
            threading.Event().wait(0.05)
        (slow,) = store.list_runs(status="running")
        assert client.predict(earlier, "", api_name="/rate_correct").startswith("Saved")
        _, _, caption = client.predict("", "(any)", "(any)", "(any)", "(any)", 1, api_name="/list_runs")
        assert caption.startswith("2 runs")
        assert store.get_run(slow.id).status == "running", "rating and browsing finished while the run was going"
        chat, run_id, _ = job.result(timeout=60)
        assert run_id == slow.id and "awake" in texts(chat[-1])
    finally:
        server.close()


def test_a_chosen_pair_shows_as_a_titled_pending_step_while_its_skill_runs(data_dir: Path, sign_png: Path) -> None:
    policy = ScriptedPolicy(["<think>rest first</think><search>Tools@@Sleepy: 3</search>",
                             "<think>rested</think><answer>awake</answer>"])
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, registry_path=FIXTURES / "registry_echo.yaml"),
                           policy=policy)
    server = Served(maestro)
    try:
        job = server.client().submit(handle_file(str(sign_png)), "nap, then answer", api_name="/ask")
        titled = None
        deadline = time.monotonic() + 60
        while titled is None and not job.done() and time.monotonic() < deadline:
            for chat, _, _ in job.outputs():
                pending = [m for m in chat if m["metadata"].get("status") == "pending"]
                if pending and "Sleepy" in pending[-1]["metadata"].get("title", ""):
                    titled = pending[-1]
            time.sleep(0.05)
        assert titled is not None, "no pending step named the chosen pair while the skill slept"
        # Sleepy is not in the verb map: the generic phrase, and the query it was sent.
        assert titled["metadata"]["title"] == "Step 1 · Tools@@Sleepy · working…"
        assert "**Query:** 3" in texts(titled)
        chat, run_id, _ = job.result(timeout=60)
        assert not [m for m in chat if m["metadata"].get("status") == "pending"], "the finished step replaced it"
        (step, _) = maestro.store.get_run(run_id).steps
        done = next(m for m in chat if m["metadata"].get("id") == "step-0")
        assert "Tools@@Sleepy" in done["metadata"]["title"] and step.observation == "woke up"
    finally:
        server.close()
    # Known skills get a verb phrase, aliases included (resolved through the real registry's names).
    registry = Maestro.open(Settings.resolve(data_dir=data_dir)).registry
    step = Step(index=2, kind="search", model="Tools", skill="Text-Reading", query="the sign")
    title = render.pending_message(2, step, registry.skill_names.resolve).metadata["title"]
    assert title == "Step 3 · Tools@@Text-Reading · reading text…"


def test_each_step_says_why_it_was_routed_live_and_in_replay(data_dir: Path, sign_png: Path) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir))
    maestro.policy = RouterPolicy(maestro.registry, maestro.store, use_embeddings=False, seed=7)
    server = Served(maestro)
    try:
        client = server.client()
        live, run_id, _ = client.predict(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/ask")
        replayed, _ = client.predict(run_id, api_name="/replay")
        assert normalised(replayed) == normalised(live)
        record = maestro.store.get_run(run_id)
        search = next(s for s in record.steps if s.kind == "search")
        body = unescape(texts(next(m for m in replayed if m["metadata"].get("id") == f"step-{search.index}")))
        assert f"**Routing** (router policy, λ {maestro.registry.orchestrator.cost_weight:g})" in body
        assert f"skill: {search.routing['skill_reason']}" in body
        assert f"expert: {search.routing['expert_reason']}" in body
        for candidate in search.routing["candidates"]:
            assert f"{candidate['expert']}" in body and f"score {candidate['score']:.2f}" in body
        assert f"**Level-2:** {search.level2} — {search.level2_reason}" in body
    finally:
        server.close()


def test_export_endpoint_writes_files_a_manifest_and_a_zip(served: Served, sign_png: Path) -> None:
    maestro = served.maestro
    good = maestro.ask(sign_png, SIGN_QUESTION)
    bad = maestro.ask(sign_png, "What is written on the sign, exactly?")
    maestro.ask(sign_png, "Which shop is this?")  # unrated: in no SFT/DPO file
    maestro.store.add_rating(good.id, rater="a", verdict="correct")
    maestro.store.add_rating(bad.id, rater="a", verdict="incorrect", corrected_answer="BAKERY")
    client = served.client()
    summary, listing, files = client.predict(["sft", "kto", "grpo"], "", "", "(any)", "(any)", "(any)", "(any)",
                                             api_name="/export")
    assert summary.startswith("exported 3 runs"), summary
    folders = [p for p in (Path(maestro.store.data_dir) / "exports").iterdir() if p.is_dir()]
    assert len(folders) == 1
    manifest = json.loads((folders[0] / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["formats"] == ["sft", "kto", "grpo"] and manifest["runs_considered"] == 3
    sft_lines = (folders[0] / "sft.jsonl").read_text(encoding="utf-8").splitlines()
    assert manifest["counts"]["sft.jsonl"] == len(sft_lines) == 2, "the correct run and the corrected one"
    assert f"sft.jsonl: {len(sft_lines)} rows" in summary
    shown = {row[0]: row for row in listing["data"]}
    assert shown["sft.jsonl"][1] == "2" and "manifest.json" in shown
    assert any(name.startswith("images/ (1 files)") for name in shown), "one image, copied once"
    assert Path(files[0]).name == f"{folders[0].name}.zip"
    with zipfile.ZipFile(files[0]) as archive:
        names = set(archive.namelist())
        assert {"manifest.json", "sft.jsonl", "sft.parquet", "kto.jsonl", "grpo.jsonl"} <= names
        assert archive.read("sft.jsonl").decode().splitlines() == sft_lines
        assert any(n.startswith("images/") and n.endswith(".png") for n in names)
    assert {Path(f).name for f in files[1:]} >= {"manifest.json", "sft.jsonl"}

    only_bad, _, _ = client.predict(["sft"], "", "", "incorrect", "(any)", "(any)", "(any)", api_name="/export")
    assert only_bad.startswith("exported 1 runs")
    message, listing, files = client.predict(["sft"], "last tuesday", "", "(any)", "(any)", "(any)", "(any)",
                                             api_name="/export")
    assert message.startswith("Error:") and "not an ISO date" in message and files is None
    message, _, _ = client.predict([], "", "", "(any)", "(any)", "(any)", "(any)", api_name="/export")
    assert "at least one format" in message


def test_handbook_endpoint_shows_what_a_rating_taught(served: Served, sign_png: Path) -> None:
    maestro = served.maestro
    client = served.client()
    caption, table = client.predict(False, api_name="/handbook")
    assert table["data"] == [] or not any(table["data"][0]), "no ratings, no handbook rows"
    assert "handbook is empty" in caption and f"λ (cost weight) = {maestro.registry.orchestrator.cost_weight:g}" \
        in unescape(caption)
    _, run_id, _ = client.predict(handle_file(str(sign_png)), SIGN_QUESTION, api_name="/ask")
    line = client.predict(run_id, "", api_name="/rate_correct")
    assert "handbook learned from it" in line
    steps = maestro.store.get_run(run_id).steps
    search = next(s for s in steps if s.kind == "search")
    calls = sum(1 for s in steps if (s.kind, s.skill, s.level2, s.model) == ("search", search.skill, search.level2,
                                                                               search.model))
    _, table = client.predict(False, api_name="/handbook")
    row = next(r for r in table["data"] if (r[0], r[1], r[2]) == (search.skill, search.level2, search.model))
    # Beta(2, 1): mean 2/3; CDF x², so the 5% and 95% quantiles are √0.05 and √0.95.
    assert row[3:8] == ["67%", "22% – 97%", "1", "1", str(calls)]
    line = client.predict(run_id, "BAKERY!", api_name="/rate_incorrect")
    assert "handbook learned from it" in line
    _, table = client.predict(False, api_name="/handbook")
    row = next(r for r in table["data"] if (r[0], r[2]) == (search.skill, search.model))
    # The newer verdict replaces the older: Beta(1, 2), quantiles 1 − √0.95 and 1 − √0.05.
    assert row[3:6] == ["33%", "3% – 78%", "1"]
    _, pooled = client.predict(True, api_name="/handbook")
    assert [r[1] for r in pooled["data"]] == ["*"] * len(pooled["data"])


def test_a_launch_whose_first_check_times_out_is_checked_again(data_dir: Path, monkeypatch) -> None:
    # On a machine busy with an eval, Gradio's 3-second HEAD check of its own new server can time out once; the
    # server is up, so the launch checks again instead of failing ("localhost is not accessible").
    import gradio.networking as networking

    real, seen = networking.url_ok, []

    def slow_once(url: str) -> bool:
        seen.append(url)
        return False if len(seen) == 1 else real(url)

    monkeypatch.setattr(networking, "url_ok", slow_once)
    server = Served(Maestro.open(Settings.resolve(data_dir=data_dir)))
    try:
        assert len(seen) >= 2
        assert server.client().view_api(return_format="dict", print_info=False)["named_endpoints"]
    finally:
        server.close()
