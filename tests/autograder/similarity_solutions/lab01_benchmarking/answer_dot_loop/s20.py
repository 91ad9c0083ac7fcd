def dot_loop(a, b):
    # copy to Python lists, then consume them from the end
    left = [float(v) for v in a]
    right = [float(v) for v in b]
    s = 0.0
    while left:
        s += left.pop() * right.pop()
    return s
