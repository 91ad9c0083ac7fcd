def dot_loop(a, b):
    """Python-loop dot product with Kahan (compensated) summation in float64."""
    total = 0.0
    comp = 0.0  # running compensation for lost low-order bits
    for i in range(len(a)):
        y = float(a[i]) * float(b[i]) - comp
        t = total + y
        comp = (t - total) - y
        total = t
    return total
