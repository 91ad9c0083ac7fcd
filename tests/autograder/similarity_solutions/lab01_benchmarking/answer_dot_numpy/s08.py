import numpy as np


def dot_numpy(a, b):
    value = np.matmul(a, b)  # 1-D @ 1-D gives a 0-d result
    return float(value)
