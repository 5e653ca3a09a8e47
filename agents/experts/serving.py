"""Starting, watching and stopping one vLLM server per registry expert that has a ``serve:`` block; expert health.

``maestro serve-experts`` uses ``ExpertServers``: one ``vllm serve MODEL --port P ...`` process per entry, each in
its own process group (vLLM forks engine workers; stopping the group stops them too), built as an argument list
and never passed through a shell. Their output is streamed line by line with a ``[name]`` prefix. ``wait_healthy``
polls ``GET /v1/models`` until every server lists its model, and fails early, with the server's last log lines,
when one exits. ``stop`` sends SIGTERM to each group, then SIGKILL to what is left after a grace period.

vLLM is CUDA-only and pins its own dependencies (it conflicts with gradio's pillow pin), so it lives in its own
environment on the GPU host; ``find_vllm`` says so when it is missing. Printing the commands (``--dry-run``) needs no
vLLM here: the app host is where an operator reads them to run on the GPU host. The executable is injectable, which
is how the tests run a small Python HTTP server in its place.

``check_expert`` is what ``maestro doctor`` reports per expert: openai -> ``health()`` (reachable, serving the model,
latency); transformers -> torch importable and weights present locally (no download is started); tools -> always.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import httpx

if TYPE_CHECKING:
    from agents.registry import ExpertSpec

VLLM_MISSING = (
    "vLLM is not installed here: `vllm` is not on PATH and `import vllm` fails. Install it in its own virtual "
    "environment on a GPU host (it conflicts with this app's pillow pin through gradio), e.g. "
    "`python -m venv ~/vllm-env && ~/vllm-env/bin/pip install vllm`, then put ~/vllm-env/bin on PATH or pass "
    "`--vllm ~/vllm-env/bin/vllm`. See docs/experts.md."
)

LogSink = Callable[[str], None]


class ServingError(RuntimeError):
    """A server that cannot be started or did not come up; the message says which and why."""


#: The executable a printed command names when vLLM is not installed here: ``vllm`` on the GPU host's PATH.
VLLM_ON_GPU_HOST = ("vllm",)


def local_vllm() -> list[str] | None:
    """The command that runs the vLLM CLI on this machine, or None when vLLM is not installed here."""
    found = shutil.which("vllm")
    if found:
        return [found]
    if importlib.util.find_spec("vllm") is not None:
        return [sys.executable, "-m", "vllm.entrypoints.cli.main"]
    return None


def find_vllm() -> list[str]:
    """The command that runs the vLLM CLI here, or ``ServingError`` with installation advice."""
    found = local_vllm()
    if found is None:
        raise ServingError(VLLM_MISSING)
    return found


def servable(experts: Sequence[Any]) -> list[Any]:
    """The registry entries with a ``serve:`` block."""
    return [e for e in experts if e.serve is not None]


def served_name(spec: ExpertSpec) -> str:
    """The model id the server answers to: what the openai back end sends as ``model``."""
    return str(spec.model or spec.name)


def build_command(spec: ExpertSpec, executable: Sequence[str], host: str = "127.0.0.1") -> list[str]:
    """The argument list that serves ``spec`` with vLLM (weights from ``model_path`` when set, else ``model``)."""
    serve = spec.serve
    if serve is None:
        raise ServingError(f"expert {spec.name!r} has no serve: block")
    command = [*executable, "serve", str(spec.model_path or spec.model or spec.name),
               "--host", host, "--port", str(serve.port),
               "--served-model-name", served_name(spec),
               "--gpu-memory-utilization", f"{serve.gpu_memory_utilization:g}",
               "--limit-mm-per-prompt", json.dumps({"image": serve.max_images_per_prompt})]
    if serve.max_model_len is not None:
        command += ["--max-model-len", str(serve.max_model_len)]
    given = {str(arg).split("=", 1)[0] for arg in serve.extra_args}  # extra_args win over what is derived
    processor = processor_kwargs(spec)
    if processor and "--mm-processor-kwargs" not in given:
        command += ["--mm-processor-kwargs", json.dumps(processor, sort_keys=True)]
    parser = reasoning_parser(spec)
    if parser and "--reasoning-parser" not in given:
        command += ["--reasoning-parser", parser]
    return command + [str(arg) for arg in serve.extra_args]


def processor_kwargs(spec: ExpertSpec) -> dict[str, Any]:
    """The image processor's limits the server must run with, so boxes in resized pixels convert exactly: the
    entry's ``min_pixels``/``max_pixels`` (the family's minimum when unset), in the keys the family's processor
    takes. Empty for a model family whose processor is not known (unknown keys could stop the server)."""
    from agents.experts.coordinates import FAMILY_MIN_PIXELS, ModelFamily

    family = _family(spec)
    if family not in FAMILY_MIN_PIXELS:
        return {}
    low = spec.min_pixels or FAMILY_MIN_PIXELS[family]
    if family in (ModelFamily.QWEN2_VL, ModelFamily.QWEN25_VL):
        return {"min_pixels": low, "max_pixels": spec.max_pixels}
    return {"size": {"shortest_edge": low, "longest_edge": spec.max_pixels}}


def reasoning_parser(spec: ExpertSpec) -> str | None:
    """vLLM's ``--reasoning-parser`` for this entry: the one it names (``none``: off), else its family's
    (GLM-4.xV: glm45; a Qwen3-VL Thinking model: deepseek_r1, which reads a reply whose ``<think>`` the chat
    template opened); None for models that do not reason."""
    from agents.experts.coordinates import ModelFamily

    named = spec.serve.reasoning_parser if spec.serve is not None else None
    if named:
        return None if named.lower() == "none" else named
    family = _family(spec)
    if family is ModelFamily.GLM4V:
        return "glm45"
    if family is ModelFamily.QWEN3_VL and "thinking" in f"{spec.model} {spec.model_path}".lower():
        return "deepseek_r1"
    return None


def _family(spec: ExpertSpec) -> Any:
    """The model family named by the entry's model id, else by its weights folder."""
    from agents.experts.coordinates import ModelFamily, model_family

    family = model_family(spec.model)
    return family if family is not ModelFamily.GENERIC else model_family(spec.model_path)


def plan_problems(specs: Sequence[Any]) -> list[str]:
    """Mistakes that would make servers clash or the app miss them: shared ports, base_url on another port,
    GPU shares that add up to more than one GPU (a warning: with several GPUs that can be intended)."""
    problems: list[str] = []
    ports: dict[int, str] = {}
    for spec in specs:
        port = spec.serve.port
        if port in ports:
            problems.append(f"experts {ports[port]!r} and {spec.name!r} both want port {port}")
        ports[port] = spec.name
        if spec.base_url:
            url = urlparse(spec.base_url)
            if url.port is not None and url.port != port:
                problems.append(f"expert {spec.name!r}: base_url {spec.base_url} uses port {url.port} "
                                f"but serve.port is {port}")
    share = sum(s.serve.gpu_memory_utilization for s in specs)
    if share > 1.0:
        problems.append(f"gpu_memory_utilization adds up to {share:.2f} (> 1): fine across several GPUs, "
                        "not on one; start each GPU's servers with `CUDA_VISIBLE_DEVICES=N maestro serve-experts "
                        "--only NAME ...` (docs/experts.md)")
    return problems


@dataclass
class ServerProcess:
    """One started server: its command, process, health URL and the tail of its log."""

    name: str
    model: str
    command: list[str]
    health_url: str
    process: subprocess.Popen[bytes]
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=40))
    reader: threading.Thread | None = None
    started: float = field(default_factory=time.monotonic)
    ready_s: float | None = None  # seconds from start to healthy, once it is

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def healthy(self, timeout_s: float = 2.0) -> bool:
        """True when ``GET /v1/models`` answers 200 and lists this server's model."""
        try:
            response = httpx.get(self.health_url, timeout=timeout_s)
            served = [str(m.get("id")) for m in response.json().get("data", [])]
        except (httpx.HTTPError, ValueError, AttributeError):
            return False
        return response.status_code == 200 and self.model in served


def _default_sink() -> LogSink:
    lock = threading.Lock()

    def write(line: str) -> None:
        with lock:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    return write


class ExpertServers:
    """Start one server per spec, wait for all to be healthy, stop them all (also as a context manager)."""

    def __init__(self, specs: Sequence[Any], *, executable: Sequence[str] | None = None, host: str = "127.0.0.1",
                 log: LogSink | None = None, env: dict[str, str] | None = None) -> None:
        self.specs = list(specs)
        self.executable = list(executable) if executable else None
        self.host = host
        self.log = log or _default_sink()
        self.env = env
        self.servers: list[ServerProcess] = []

    def commands(self, *, to_print: bool = False) -> list[list[str]]:
        """The argument list of every server. Starting needs vLLM here (``ServingError`` otherwise); commands
        ``to_print`` do not: without vLLM they name ``vllm`` as found on the GPU host's PATH."""
        if self.executable:
            executable = self.executable
        elif to_print:
            executable = local_vllm() or list(VLLM_ON_GPU_HOST)
        else:
            executable = find_vllm()
        return [build_command(spec, executable, self.host) for spec in self.specs]

    def start(self, *, one_by_one: bool = False, timeout_s: float = 900.0,
              on_ready: Callable[[ServerProcess, float], None] | None = None) -> list[ServerProcess]:
        """Start every server; ``one_by_one`` waits for each to be healthy before starting the next (vLLM
        measures free GPU memory while it starts, so servers sharing a GPU should not start together)."""
        commands = self.commands()  # fails before anything starts when vLLM is missing
        local = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        for spec, command in zip(self.specs, commands, strict=True):
            if one_by_one and self.servers:
                self.wait_healthy(timeout_s, on_ready=on_ready)
            try:
                process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, start_new_session=True, env=self.env)
            except OSError as exc:
                self.stop(grace_s=1.0)
                raise ServingError(f"could not start the server for {spec.name!r} ({command[0]}): {exc}") from exc
            server = ServerProcess(spec.name, served_name(spec), command,
                                   f"http://{local}:{spec.serve.port}/v1/models", process)
            server.reader = threading.Thread(target=self._pump, args=(server,), daemon=True,
                                             name=f"log-{spec.name}")
            server.reader.start()
            self.servers.append(server)
        return self.servers

    def _pump(self, server: ServerProcess) -> None:
        assert server.process.stdout is not None
        for raw in iter(server.process.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            server.tail.append(line)
            self.log(f"[{server.name}] {line}")

    def wait_healthy(self, timeout_s: float = 900.0, poll_s: float = 1.0,
                     on_ready: Callable[[ServerProcess, float], None] | None = None) -> dict[str, float]:
        """Seconds each server took (from its start) to list its model; ``ServingError`` when one exits or
        ``timeout_s`` passes."""
        started = time.monotonic()
        while True:
            for server in self.servers:
                if server.ready_s is not None:
                    continue
                if not server.alive:
                    if server.reader is not None:
                        server.reader.join(timeout=2.0)  # collect its last words for the message
                    last = "\n".join(f"  {line}" for line in list(server.tail)[-15:]) or "  (no output)"
                    raise ServingError(f"the server for {server.name!r} exited with code "
                                       f"{server.process.returncode} before it was healthy; its last output:\n"
                                       f"{last}")
                if server.healthy():
                    server.ready_s = time.monotonic() - server.started
                    if on_ready is not None:
                        on_ready(server, server.ready_s)
            waiting = [s.name for s in self.servers if s.ready_s is None]
            if not waiting:
                return {s.name: s.ready_s or 0.0 for s in self.servers}
            if time.monotonic() - started > timeout_s:
                raise ServingError(f"not healthy after {timeout_s:g} s: {', '.join(waiting)} (GET /v1/models did "
                                   "not list the model yet; large models can take minutes, see --health-timeout)")
            time.sleep(poll_s)

    def stop(self, grace_s: float = 10.0) -> dict[str, int | None]:
        """SIGTERM every process group, SIGKILL what is left after ``grace_s``; the exit codes by name."""
        for server in self.servers:
            _signal_group(server.process, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for server in self.servers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        for server in self.servers:
            # Also for leaders that did exit: workers they forked may still hold the GPU.
            _signal_group(server.process, signal.SIGKILL)
            server.process.wait()
            if server.reader is not None:
                server.reader.join(timeout=2.0)
            if server.process.stdout is not None:
                server.process.stdout.close()
        codes = {s.name: s.process.returncode for s in self.servers}
        self.servers = []
        return codes

    def serve_forever(self, grace_s: float = 10.0, poll_s: float = 0.5) -> int:
        """Block until SIGINT/SIGTERM (then stop all, return 0) or until a server dies (stop all, return 1).

        Call from the main thread: that is where Python delivers signals."""
        stopping = threading.Event()
        previous = {sig: signal.signal(sig, lambda *_: stopping.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            while not stopping.wait(poll_s):
                dead = [s for s in self.servers if not s.alive]
                if dead:
                    self.log(f"[maestro] {dead[0].name} exited with code {dead[0].process.returncode}; "
                             "stopping the others")
                    return 1
            self.log("[maestro] stopping the expert servers")
            return 0
        finally:
            self.stop(grace_s)
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def __enter__(self) -> ExpertServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    # Each server leads its own session (start_new_session), so its pid is its process-group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


# -- doctor ----------------------------------------------------------------------------------------------------


@dataclass
class Reachability:
    """What ``maestro doctor`` says about one expert."""

    name: str
    backend: str
    ok: bool
    latency_ms: float | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "backend": self.backend, "ok": self.ok, "latency_ms": self.latency_ms,
                "detail": self.detail}


def check_expert(spec: ExpertSpec) -> Reachability:
    """Whether ``spec`` can answer now, and how fast it said so."""
    started = time.perf_counter()
    if spec.backend == "tools":
        return Reachability(spec.name, "tools", True, None, "no model: the vision tools are always available")
    if spec.backend == "openai":
        from agents.experts.factory import build_openai_expert

        expert = build_openai_expert(spec)
        try:
            ok, latency, detail = expert.health()
        finally:
            expert.close()
        return Reachability(spec.name, "openai", ok, latency, f"{spec.base_url}: {detail}")
    return _check_transformers(spec, started)


def _check_transformers(spec: ExpertSpec, started: float) -> Reachability:
    from agents.experts.base import ExpertError
    from agents.experts.transformers_backend import _HUB_ID, _import_torch, resolve_weights

    def result(ok: bool, detail: str) -> Reachability:
        return Reachability(spec.name, "transformers", ok, (time.perf_counter() - started) * 1000, detail)

    try:
        torch, transformers = _import_torch()
    except ExpertError as exc:
        return result(False, str(exc))
    versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    target = str(spec.model_path or spec.model)
    if not os.path.isdir(os.path.expanduser(target)) and _HUB_ID.match(target):
        # resolve_weights would download a missing hub model; a health check must not start a download.
        try:
            from huggingface_hub import snapshot_download

            folder = snapshot_download(target, local_files_only=True)
        except Exception:  # noqa: BLE001 - any miss means "not in the local cache"
            return result(False, f"{target} is not in the local Hugging Face cache (first use would download "
                                 f"it; offline: `hf download {target}`); {versions}")
        return result(True, f"weights in the cache at {folder}; {versions}")
    try:
        weights = resolve_weights(target)
    except ExpertError as exc:
        return result(False, str(exc))
    return result(True, f"weights at {weights}; {versions}")
