"""What a sandboxed run returns (``SandboxResult``) and the one error it raises when it cannot run (``SandboxUnavailable``).

``stopped_by`` is the protection that ended the program, taken from trusted accounts only (the prelude's status
pipe, the parent's timer, the exit signal, the run's cgroup counters); ``hint`` is what the program's own last
error line looks like, which a program can forge and which is therefore only ever a reason to doubt its output.
``cpu_s`` and ``peak_memory_mb`` are the kernel's account of the whole run (every process), from its cgroup.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run code here as required; the message is one line saying what is missing."""


@dataclass
class SandboxResult:
    """What the code did: its output, exit status, which protections were on, and which rule stopped it."""

    stdout: str
    stderr: str
    returncode: int | None  # negative: killed by that signal
    timed_out: bool
    latency_ms: float
    protections: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    stopped_by: str | None = None
    mode: str = "strict"
    details: dict[str, str] = field(default_factory=dict)
    hint: str | None = None  # from the program's own stderr: never an attribution
    cpu_s: float | None = None  # CPU seconds of all its processes (None: no cgroup to count them)
    peak_memory_mb: float | None = None  # the most memory all its processes held at once

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def network_isolated(self) -> bool:
        return any(p.startswith("network namespace") for p in self.protections)

    def summary(self) -> str:
        state = "timed out" if self.timed_out else f"exit {self.returncode}"
        out = (self.stdout.strip() or self.stderr.strip())[:200]
        rule = f" (stopped by {self.stopped_by})" if self.stopped_by else ""
        return f"python {state}{rule} in {self.latency_ms:.0f} ms: {out}"

    def to_dict(self) -> dict[str, object]:
        return {"stdout": self.stdout, "stderr": self.stderr, "returncode": self.returncode,
                "timed_out": self.timed_out, "network_isolated": self.network_isolated,
                "stopped_by": self.stopped_by, "hint": self.hint, "mode": self.mode,
                "protections": list(self.protections), "missing": list(self.missing), "cpu_s": self.cpu_s,
                "peak_memory_mb": self.peak_memory_mb}
