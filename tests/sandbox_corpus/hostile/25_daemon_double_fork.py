# Attempts: a daemon (double fork, setsid, re-exec with a marker) that outlives the run, then writes outside and calls home.
# exit-status: any
import json
import os
import sys

cfg = json.load(sys.stdin)
later = (f"import socket, time\ntime.sleep(1.5)\nopen({cfg['outside']!r} + '/pwned_by_daemon', 'w').write('alive')\n"
         f"socket.create_connection(('127.0.0.1', {cfg['tcp_port']})).sendall(b'daemon alive')\n")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", later, cfg["token"]])
    os._exit(0)
print("parent leaves its daemon behind")
