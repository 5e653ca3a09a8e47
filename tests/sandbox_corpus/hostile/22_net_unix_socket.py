# Attempts: connect to a UNIX socket the host listens on (by path and by the abstract name), and send data.
import json
import socket
import sys

cfg = json.load(sys.stdin)
for address in (cfg["unix_socket"], "\0" + cfg["abstract_socket"]):
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(address)
        conn.sendall(b"escaped over unix")
        print("connected to", repr(address))
    except OSError as exc:
        print("refused", repr(address), exc)
        last = exc
raise last
