import operator


def strong_scaling_efficiency(t_serial, t_parallel, p):
    # efficiency = t1 / (p * tp)
    denominator = operator.mul(p, t_parallel)
    return operator.truediv(t_serial, denominator)
