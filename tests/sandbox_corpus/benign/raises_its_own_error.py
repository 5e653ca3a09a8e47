# Benign: a program whose own bug raises: the error is reported, and no sandbox rule is blamed.
values = {"a": 1}
print("before the error")
print(values["missing"])
