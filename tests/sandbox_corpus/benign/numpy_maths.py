# Benign: numpy linear algebra (skipped by the test where numpy is not installed).
import numpy as np

matrix = np.array([[2.0, 1.0], [1.0, 3.0]])
print(np.round(np.linalg.solve(matrix, np.array([3.0, 5.0])), 6), np.round(np.linalg.eigvalsh(matrix), 6))
print(int(np.arange(10).reshape(2, 5).sum(axis=1)[1]))
