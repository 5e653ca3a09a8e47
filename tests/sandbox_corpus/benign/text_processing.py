# Benign: text processing: regular expressions, counting words, formatting, unicode.
import collections
import re
import textwrap
import unicodedata

text = "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs! Café, naïve, ﬁne."
words = re.findall(r"[a-zà-ÿ]+", text.lower())
print(collections.Counter(words).most_common(3))
print(textwrap.fill(text, width=30))
print(unicodedata.normalize("NFKD", "ﬁne Café").encode("ascii", "ignore").decode())
print(re.sub(r"(\w+) (\w+)", r"\2 \1", "hello world foo bar"))
