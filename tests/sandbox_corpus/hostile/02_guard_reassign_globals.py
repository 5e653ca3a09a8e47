# Attempts: reassign the guard's globals (the refused events) in the prelude's module, then connect to the test's TCP server.
import json
import socket
import sys

cfg = json.load(sys.stdin)
guard = sys.modules["__main__"].__dict__
guard["_REFUSED_EVENTS"] = ("nothing-is-refused",)
guard["_REFUSED_IMPORTS"] = frozenset()
with socket.create_connection(("127.0.0.1", cfg["tcp_port"]), timeout=2) as conn:
    conn.sendall(b"escaped via reassigned globals")
