# Attempts: resolve a name (DNS) and send a raw DNS query over UDP to the test's UDP server.
import json
import socket
import sys

cfg = json.load(sys.stdin)
try:
    print(socket.getaddrinfo("example.com", 80))
except OSError as exc:
    print("getaddrinfo failed:", exc)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01",
           ("127.0.0.1", cfg["udp_port"]))
