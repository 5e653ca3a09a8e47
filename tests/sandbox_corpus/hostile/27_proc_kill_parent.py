# Attempts: kill the parent (os.kill(os.getppid())), every process it may signal (kill -1), and a host process by pid.
import json
import os
import signal
import sys

cfg = json.load(sys.stdin)
os.kill(os.getppid(), signal.SIGKILL)
os.kill(-1, signal.SIGKILL)
os.kill(cfg["victim_pid"], signal.SIGKILL)
