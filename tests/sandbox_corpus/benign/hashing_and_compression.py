# Benign: hashlib, zlib, gzip, base64 and an in-memory sqlite database.
import base64
import gzip
import hashlib
import sqlite3
import zlib

data = b"maestro " * 100
print(hashlib.sha256(data).hexdigest(), zlib.crc32(data), len(gzip.compress(data, mtime=0)))
print(base64.b64encode(b"sandbox").decode())
db = sqlite3.connect(":memory:")
db.execute("create table t (x integer)")
db.executemany("insert into t values (?)", [(i,) for i in range(10)])
print(db.execute("select sum(x), count(*) from t").fetchone())
