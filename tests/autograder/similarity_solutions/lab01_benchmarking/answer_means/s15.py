import math
import numpy as np


def arithmetic_mean(xs):
    """A = sum(x) / n."""
    values = np.fromiter((float(x) for x in xs), dtype=np.float64)
    return float(values.mean())


def harmonic_mean(xs):
    """H = n / sum(1/x)."""
    values = np.fromiter((float(x) for x in xs), dtype=np.float64)
    return float(len(values) / (1.0 / values).sum())


def geometric_mean(xs):
    """G = exp(mean(log x)); the log sum is accumulated with math.fsum."""
    logs = [math.log(float(x)) for x in xs]
    return math.exp(math.fsum(logs) / len(logs))
