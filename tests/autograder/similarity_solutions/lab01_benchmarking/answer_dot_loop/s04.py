def dot_loop(a, b):
    n = len(a)
    result = 0.0
    i = 0
    while i < n:
        result += float(a[i]) * float(b[i])
        i += 1
    return result
