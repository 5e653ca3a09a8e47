# Attempts: clear no_new_privs and disable seccomp through prctl, then open a socket to the test's TCP server.
import ctypes
import json
import socket
import sys

cfg = json.load(sys.stdin)
libc = ctypes.CDLL(None, use_errno=True)
print("PR_SET_NO_NEW_PRIVS 0 ->", libc.prctl(38, 0, 0, 0, 0), ctypes.get_errno())
print("PR_SET_SECCOMP disabled ->", libc.prctl(22, 0, 0, 0, 0), ctypes.get_errno())
socket.create_connection(("127.0.0.1", cfg["tcp_port"]), timeout=2).sendall(b"escaped after prctl")
