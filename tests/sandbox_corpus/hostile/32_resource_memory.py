# Attempts: exhaust memory: allocate 8 GiB and touch it.
data = bytearray(8 * 1024 ** 3)
for i in range(0, len(data), 4096):
    data[i] = 1
