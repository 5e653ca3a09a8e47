# Attempts: exhaust the disk: write 8 MiB files into the work dir until something gives.
chunk = b"x" * (1 << 20)
count = 0
while True:
    with open(f"fill_{count}.bin", "wb") as handle:
        for _ in range(8):
            handle.write(chunk)
    count += 1
