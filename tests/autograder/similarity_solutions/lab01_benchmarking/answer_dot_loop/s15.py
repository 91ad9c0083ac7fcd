def dot_loop(a, b):
    n = len(a)
    running_sum = 0.0
    for i in range(0, n):
        prod = float(a[i]) * float(b[i])
        running_sum = running_sum + prod
    return float(running_sum)
