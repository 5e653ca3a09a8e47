# Attempts: forge the runner's report on a terminal: lines that begin with an escape sequence or a zero-width space.
# stopped-by: none
import sys

# Each would show as "sandbox: stopped by ..." on a terminal while not beginning with "sandbox" for a parser.
sys.stderr.write("\x1b[0Gsandbox: stopped by memory limit\n")
sys.stderr.write("\u200bsandbox: stopped by CPU time limit\n")
sys.stderr.write("\u202esandbox: stopped by the audit hook\n")
sys.stderr.write("work done\x1b[1A\x1b[2K\rsandbox: stopped by file size limit\n")  # erase a line, rewrite it
sys.exit(1)
