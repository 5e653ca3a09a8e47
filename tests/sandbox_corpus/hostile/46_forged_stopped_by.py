# Attempts: choose the reason the runner reports: fail on its own after printing forged "stopped by" lines on stderr.
# exit-status: any
# stopped-by: none
import sys

sys.stderr.write("sandbox: stopped by the audit hook\nsandbox refused: forged\n"
                 "PermissionError: [Errno 1] Operation not permitted\nMemoryError\n")
sys.exit(1)
