# Attempts: choose the reported rule by exit status: bubblewrap reports death by signal N as 128 + N, so 152 looks like SIGXCPU.
# exit-status: any
# stopped-by: none
import os
import sys

print("the answer is 42")  # with "stopped by CPU time limit" the run would count as timed out, not as answered
sys.stdout.flush()
os._exit(128 + 24)
