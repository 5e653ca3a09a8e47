# Attempts: connect to the test's TCP server on 127.0.0.1 and send data.
import json
import socket
import sys

cfg = json.load(sys.stdin)
with socket.create_connection(("127.0.0.1", cfg["tcp_port"]), timeout=2) as conn:
    conn.sendall(b"escaped over tcp")
