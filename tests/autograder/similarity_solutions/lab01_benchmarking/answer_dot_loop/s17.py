def dot_loop(a, b):
    if len(a) == 0:
        return 0.0

    result = float(a[0]) * float(b[0])
    for idx in range(1, len(b)):
        result += float(a[idx]) * float(b[idx])
    return result
