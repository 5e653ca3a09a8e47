"""Entry point: launch the Maestro web application on the configured (by default the embedded offline) registry.

    python app.py [--host 127.0.0.1] [--port 7860] [--data-dir DIR] [--registry FILE] [--db URL]
                  [--auth user:password] [--share]

The same as ``maestro web``: one set of options (and of ``MAESTRO_*`` environment variables) for both, and the
same one-line errors with exit code 2.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    from ui.cli import main as maestro

    maestro(["web", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
