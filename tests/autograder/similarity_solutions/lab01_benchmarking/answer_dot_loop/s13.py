def dot_loop(a, b):
    # going backwards works just as well: addition order only changes the last bits
    total = 0.0
    for i in reversed(range(len(a))):
        total += float(a[i]) * float(b[i])
    return total
