# Attempts: exhaust the process table with threads that never end.
import threading
import time

threads = []
for _ in range(100_000):
    thread = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
    thread.start()
    threads.append(thread)
