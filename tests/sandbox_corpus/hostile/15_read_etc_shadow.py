# Attempts: read /etc/shadow and /etc/passwd of the host.
for path in ("/etc/passwd", "/etc/shadow"):
    with open(path) as handle:
        print(handle.read())
