"""Entry point: launch the Maestro web application on the configured (by default the embedded offline) registry.

    python app.py [--host 127.0.0.1] [--port 7860] [--data-dir DIR] [--registry FILE] [--db URL]
                  [--auth user:password] [--share]
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Launch the Maestro web application.")
    parser.add_argument("--host", default="127.0.0.1", help="Interface to listen on (0.0.0.0 for all).")
    parser.add_argument("--port", type=int, default=7860, help="Port to listen on.")
    parser.add_argument("--data-dir", default=None, help="Data directory (default $MAESTRO_HOME or ~/.maestro).")
    parser.add_argument("--registry", default=None, help="Registry YAML (default $MAESTRO_REGISTRY or the bundled one).")
    parser.add_argument("--db", default=None, help="SQLAlchemy URL (default SQLite in the data directory).")
    parser.add_argument("--auth", default=None, help="One more login, user:password, besides the annotator "
                                                     "accounts of <data dir>/users.txt (maestro users add NAME).")
    parser.add_argument("--share", action="store_true", help="Open a public Gradio share link (off by default).")
    args = parser.parse_args(argv)

    from ui.web import launch

    launch(host=args.host, port=args.port, auth=args.auth, share=args.share, data_dir=args.data_dir,
           registry=args.registry, db=args.db)


if __name__ == "__main__":
    main()
