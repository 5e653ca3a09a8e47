"""vLLM process management with a stand-in: a small Python HTTP server script plays `vllm serve` (no GPU here).

The stand-in (``FAKE_VLLM``, written to a temporary file and passed as the injectable executable) accepts the
real ``vllm serve MODEL --host --port --served-model-name ...`` arguments, records its argv and pid, answers
``GET /v1/models`` with the served name, and takes extra ``--fake-*`` flags (through the registry's
``serve.extra_args``) to start slowly, crash, ignore SIGTERM, fork a worker into its process group, or die later.
The tests assert on real processes: the command line, the health wait, prefixed logs, clean stops.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from agents.experts.serving import (
    VLLM_MISSING,
    ExpertServers,
    ServingError,
    build_command,
    find_vllm,
    plan_problems,
)
from agents.registry import ExpertSpec, load_registry

REPO = Path(__file__).resolve().parent.parent

FAKE_VLLM = r'''
import argparse, json, os, signal, subprocess, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("verb")
parser.add_argument("model")
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--served-model-name")
parser.add_argument("--fake-record")
parser.add_argument("--fake-delay", type=float, default=0.0)
parser.add_argument("--fake-exit", type=int)
parser.add_argument("--fake-die-after", type=float)
parser.add_argument("--fake-ignore-term", action="store_true")
parser.add_argument("--fake-worker", action="store_true")
args, _ = parser.parse_known_args()
name = args.served_model_name or args.model
record = {"argv": sys.argv[1:], "pid": os.getpid(), "pgid": os.getpgid(0)}
if args.fake_ignore_term:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if args.fake_worker:
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    record["worker"] = worker.pid
if args.fake_record:
    with open(os.path.join(args.fake_record, f"{args.port}.json"), "w") as f:
        json.dump(record, f)
print(f"INFO starting {name} on port {args.port}", flush=True)
if args.fake_exit is not None:
    print("ERROR torch.OutOfMemoryError: CUDA out of memory", flush=True)
    sys.exit(args.fake_exit)
time.sleep(args.fake_delay)

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": name, "object": "model"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = ThreadingHTTPServer((args.host, args.port), Handler)
print("INFO Application startup complete.", flush=True)
if args.fake_die_after is not None:
    import threading
    threading.Timer(args.fake_die_after, lambda: os._exit(7)).start()
server.serve_forever()
'''


@pytest.fixture(scope="module")
def fake_vllm(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    script = tmp_path_factory.mktemp("fake-vllm") / "fake_vllm.py"
    script.write_text(FAKE_VLLM, encoding="utf-8")
    return [sys.executable, "-u", str(script)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spec(name: str, port: int, *extra: str, **fields: Any) -> ExpertSpec:
    return ExpertSpec.model_validate({"name": name, "backend": "openai", "model": f"org/{name}",
                                      "base_url": f"http://127.0.0.1:{port}/v1",
                                      "serve": {"port": port, "gpu_memory_utilization": 0.3,
                                                "extra_args": list(extra)}, **fields})


def gone(pid: int, wait_s: float = 5.0) -> bool:
    """True once ``pid`` no longer runs (absent, or a zombie waiting for a parent that is not us)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def record(folder: Path, port: int) -> dict[str, Any]:
    return json.loads((folder / f"{port}.json").read_text())


def test_command_line_is_an_argument_list_with_every_setting() -> None:
    entry = ExpertSpec.model_validate({
        "name": "Chart-R1", "backend": "openai", "model": "chart-r1", "model_path": "/models/Chart-R1",
        "base_url": "http://gpu:8002/v1",
        "serve": {"port": 8002, "gpu_memory_utilization": 0.2, "max_model_len": 16384,
                  "max_images_per_prompt": 3, "extra_args": ["--dtype", "bfloat16", "--trust-remote-code"]}})
    assert build_command(entry, ["vllm"], host="0.0.0.0") == [
        "vllm", "serve", "/models/Chart-R1", "--host", "0.0.0.0", "--port", "8002",
        "--served-model-name", "chart-r1", "--gpu-memory-utilization", "0.2",
        "--limit-mm-per-prompt", '{"image": 3}', "--max-model-len", "16384",
        "--dtype", "bfloat16", "--trust-remote-code"]
    # A model name with shell metacharacters stays one argument: nothing is ever run through a shell.
    odd = spec("x", 9000, model="a; rm -rf / $(id)")
    assert build_command(odd, ["vllm"])[2] == "a; rm -rf / $(id)"


def test_plan_problems() -> None:
    assert plan_problems([spec("a", 8001), spec("b", 8002)]) == []
    clash = plan_problems([spec("a", 8001), spec("b", 8001), spec("c", 8003, base_url="http://h:9999/v1"),
                           spec("d", 8004)])
    assert any("'a' and 'b' both want port 8001" in p for p in clash)
    assert any("'c': base_url http://h:9999/v1 uses port 9999 but serve.port is 8003" in p for p in clash)
    assert any("adds up to 1.20" in p for p in clash)


def test_missing_vllm_says_to_install_it_in_its_own_environment(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is importable here")
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no `vllm` executable
    with pytest.raises(ServingError) as info:
        find_vllm()
    assert str(info.value) == VLLM_MISSING
    assert "own virtual environment on a GPU host" in VLLM_MISSING and "pillow" in VLLM_MISSING
    with pytest.raises(ServingError, match="not installed"):
        ExpertServers([spec("a", free_port())]).start()


def test_start_wait_healthy_logs_and_clean_stop(fake_vllm: list[str], tmp_path: Path) -> None:
    ports = [free_port(), free_port()]
    specs = [spec("Alpha", ports[0], "--fake-record", str(tmp_path), "--fake-worker"),
             spec("Beta", ports[1], "--fake-record", str(tmp_path), "--fake-delay", "1.0")]
    lines: list[str] = []
    servers = ExpertServers(specs, executable=fake_vllm, log=lines.append)
    with servers:
        started = servers.start()
        ready = servers.wait_healthy(timeout_s=30, poll_s=0.1)
        assert set(ready) == {"Alpha", "Beta"} and ready["Beta"] >= 1.0
        for port in ports:
            served = httpx.get(f"http://127.0.0.1:{port}/v1/models").json()["data"][0]["id"]
            assert served in {"org/Alpha", "org/Beta"}
        alpha, beta = record(tmp_path, ports[0]), record(tmp_path, ports[1])
        assert alpha["argv"] == build_command(specs[0], ["x"])[1:]
        # Each server leads its own process group, so a terminal's Ctrl-C or a stop reaches its workers too.
        assert alpha["pgid"] == alpha["pid"] == started[0].process.pid != os.getpgid(0)
        pids = [alpha["pid"], alpha["worker"], beta["pid"]]
        codes = servers.stop(grace_s=5)
    assert codes == {"Alpha": -signal.SIGTERM, "Beta": -signal.SIGTERM}
    assert all(gone(pid) for pid in pids)
    assert f"[Alpha] INFO starting org/Alpha on port {ports[0]}" in lines
    assert "[Beta] INFO Application startup complete." in lines
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{ports[0]}/v1/models")


@pytest.mark.slow
def test_one_by_one_starts_the_next_server_only_when_the_previous_is_healthy(fake_vllm: list[str],
                                                                              tmp_path: Path) -> None:
    ports = [free_port(), free_port()]
    ready: list[str] = []
    with ExpertServers([spec("First", ports[0], "--fake-delay", "1.0"), spec("Second", ports[1])],
                       executable=fake_vllm, log=lambda line: None) as servers:
        first, second = servers.start(one_by_one=True, timeout_s=30,
                                      on_ready=lambda server, secs: ready.append(server.name))
        # Second was spawned after First answered, about a second after First was spawned.
        assert ready == ["First"] and second.started - first.started >= 1.0
        servers.wait_healthy(timeout_s=30, poll_s=0.1, on_ready=lambda server, secs: ready.append(server.name))
    assert ready == ["First", "Second"]


def test_server_ignoring_sigterm_is_killed_after_the_grace_period(fake_vllm: list[str], tmp_path: Path) -> None:
    port = free_port()
    servers = ExpertServers([spec("Stubborn", port, "--fake-ignore-term", "--fake-record", str(tmp_path))],
                            executable=fake_vllm, log=lambda line: None)
    servers.start()
    servers.wait_healthy(timeout_s=30, poll_s=0.1)
    pid = record(tmp_path, port)["pid"]
    started = time.monotonic()
    assert servers.stop(grace_s=0.5) == {"Stubborn": -signal.SIGKILL}
    assert time.monotonic() - started >= 0.5 and gone(pid)


def test_crash_before_healthy_reports_its_last_output(fake_vllm: list[str], tmp_path: Path) -> None:
    ports = [free_port(), free_port()]
    servers = ExpertServers([spec("Fine", ports[0]), spec("Broken", ports[1], "--fake-exit", "3")],
                            executable=fake_vllm, log=lambda line: None)
    fine = servers.start()[0]
    with pytest.raises(ServingError) as info:
        servers.wait_healthy(timeout_s=30, poll_s=0.1)
    message = str(info.value)
    assert "'Broken' exited with code 3 before it was healthy" in message and "CUDA out of memory" in message
    servers.stop(grace_s=5)
    # The healthy one is stopped too, however far its start had got (on a loaded machine, not far).
    assert gone(fine.process.pid)


def test_health_timeout(fake_vllm: list[str]) -> None:
    with ExpertServers([spec("Slow", free_port(), "--fake-delay", "60")], executable=fake_vllm,
                       log=lambda line: None) as servers:
        servers.start()
        with pytest.raises(ServingError, match=r"not healthy after 0.5 s: Slow"):
            servers.wait_healthy(timeout_s=0.5, poll_s=0.1)


def test_serve_forever_stops_everything_when_one_server_dies(fake_vllm: list[str], tmp_path: Path) -> None:
    ports = [free_port(), free_port()]
    lines: list[str] = []
    servers = ExpertServers([spec("Steady", ports[0], "--fake-record", str(tmp_path)),
                             spec("Dying", ports[1], "--fake-die-after", "1.0")], executable=fake_vllm,
                            log=lines.append)
    servers.start()
    servers.wait_healthy(timeout_s=30, poll_s=0.1)
    assert servers.serve_forever(grace_s=5, poll_s=0.1) == 1
    assert "[maestro] Dying exited with code 7; stopping the others" in lines
    assert gone(record(tmp_path, ports[0])["pid"]) and servers.servers == []


def write_registry(path: Path, ports: list[int], record_dir: Path) -> Path:
    experts = "".join(f"""
  - name: Expert-{i}
    backend: openai
    model: org/expert-{i}
    base_url: http://127.0.0.1:{port}/v1
    retries: 0
    serve: {{port: {port}, gpu_memory_utilization: 0.4, extra_args: [--fake-record, "{record_dir}"]}}
""" for i, port in enumerate(ports))
    path.write_text(f"experts:{experts}  - name: Tools\n    backend: tools\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_cli_serve_experts_until_signalled(fake_vllm: list[str], tmp_path: Path, stop_signal: int) -> None:
    ports = [free_port(), free_port()]
    registry = write_registry(tmp_path / "registry.yaml", ports, tmp_path)
    cli = subprocess.Popen([sys.executable, "-m", "ui.cli", "serve-experts", "--registry", str(registry),
                            "--vllm", shlex.join(fake_vllm), "--grace", "5"], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [output.put(line.rstrip("\n")) for line in cli.stdout], daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while not any(line.startswith("all 2 expert server(s) healthy") for line in seen):
        assert cli.poll() is None and time.monotonic() < deadline, "\n".join(seen)
        with contextlib.suppress(queue.Empty):
            seen.append(output.get(timeout=1))
    assert any(line.startswith("Expert-0: ") and "serve org/expert-0 --host 127.0.0.1" in line for line in seen)
    assert any(line.startswith("ready: Expert-1 serving org/expert-1") for line in seen)
    assert "[Expert-0] INFO Application startup complete." in seen
    pids = [record(tmp_path, port)["pid"] for port in ports]

    doctor = subprocess.run([sys.executable, "-m", "ui.cli", "doctor", "--registry", str(registry), "--json"],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert [row["ok"] for row in json.loads(doctor.stdout)] == [True, True, True]

    cli.send_signal(stop_signal)
    assert cli.wait(timeout=30) == 0
    assert all(gone(pid) for pid in pids)
    time.sleep(0.2)
    rest = []
    while not output.empty():
        rest.append(output.get())
    assert "stopped" in rest


@pytest.mark.slow
def test_cli_without_vllm_is_one_clear_line(tmp_path: Path) -> None:
    registry = write_registry(tmp_path / "registry.yaml", [free_port()], tmp_path)
    env = {**os.environ, "PATH": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "ui.cli", "serve-experts", "--registry", str(registry)],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {VLLM_MISSING}"


@pytest.mark.slow
def test_cli_dry_run_and_bundled_registries() -> None:
    for name, count in [("paper-pool.yaml", 6), ("single-gpu.yaml", 1)]:
        path = REPO / "assets" / "registries" / name
        assert len([e for e in load_registry(path).experts if e.serve]) == count
        result = subprocess.run([sys.executable, "-m", "ui.cli", "serve-experts", "--registry", str(path),
                                 "--vllm", "vllm", "--dry-run"], cwd=REPO, capture_output=True, text=True,
                                timeout=120)
        assert result.returncode == 0, result.stderr
        commands = [line for line in result.stdout.splitlines() if " serve " in line]
        assert len(commands) == count and all("--limit-mm-per-prompt" in c for c in commands)


@pytest.mark.parametrize(("name", "count"), [("paper-pool.yaml", 6), ("single-gpu.yaml", 1)])
@pytest.mark.slow
def test_dry_run_prints_the_commands_where_vllm_is_not_installed(tmp_path: Path, name: str, count: int) -> None:
    # The app host, where an operator reads the commands to run on the GPU host, has no vLLM.
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is importable here")
    env = {**os.environ, "PATH": str(tmp_path)}  # an empty folder: no `vllm` executable
    result = subprocess.run([sys.executable, "-m", "ui.cli", "serve-experts", "--registry",
                             str(REPO / "assets" / "registries" / name), "--dry-run"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    commands = [line.split(": ", 1)[1] for line in result.stdout.splitlines() if ": vllm serve " in line]
    assert len(commands) == count and len(result.stdout.splitlines()) == count
    registry = load_registry(REPO / "assets" / "registries" / name)
    assert [shlex.split(c) for c in commands] == [build_command(s, ["vllm"]) for s in registry.experts if s.serve]
    assert "vLLM is not installed here" in result.stderr and "error" not in result.stderr


@pytest.mark.parametrize(("model", "limits", "processor", "parser"), [
    ("Qwen/Qwen2.5-VL-7B-Instruct", {"max_pixels": 1_003_520}, {"min_pixels": 3136, "max_pixels": 1_003_520}, None),
    ("Qwen/Qwen3-VL-8B-Instruct", {"min_pixels": 131_072, "max_pixels": 2_000_000},
     {"size": {"shortest_edge": 131_072, "longest_edge": 2_000_000}}, None),
    ("Qwen/Qwen3-VL-8B-Thinking", {}, {"size": {"shortest_edge": 65_536, "longest_edge": 1_003_520}},
     "deepseek_r1"),
    ("zai-org/GLM-4.6V", {}, {"size": {"shortest_edge": 12_544, "longest_edge": 1_003_520}}, "glm45"),
    ("chart-r1", {}, None, None),  # an unknown processor gets no keys it might refuse
])
def test_processor_limits_and_reasoning_parser_follow_the_entry(model: str, limits: dict[str, int],
                                                                processor: dict[str, Any] | None,
                                                                parser: str | None) -> None:
    entry = ExpertSpec.model_validate({"name": "E", "backend": "openai", "model": model,
                                       "base_url": "http://gpu:8002/v1", "serve": {"port": 8002}, **limits})
    command = build_command(entry, ["vllm"])
    flags = dict(zip(command[3::2], command[4::2], strict=False))  # after "vllm serve MODEL": flag, value pairs
    assert (json.loads(flags["--mm-processor-kwargs"]) if "--mm-processor-kwargs" in flags else None) == processor
    assert flags.get("--reasoning-parser") == parser
    # What the entry's serve block says wins: a parser named there, or none at all, or flags in extra_args.
    named = entry.model_copy(update={"serve": entry.serve.model_copy(update={"reasoning_parser": "qwen3"})})
    assert build_command(named, ["vllm"])[-2:] == ["--reasoning-parser", "qwen3"]
    off = entry.model_copy(update={"serve": entry.serve.model_copy(update={
        "reasoning_parser": "none", "extra_args": ["--mm-processor-kwargs", "{}"]})})
    assert "--reasoning-parser" not in build_command(off, ["vllm"])
    assert build_command(off, ["vllm"]).count("--mm-processor-kwargs") == 1
