def dot_loop(a, b):
    # walk both arrays together; convert to Python floats so nothing stays float32
    acc = 0.0
    for x, y in zip(a, b):
        acc = acc + float(x) * float(y)
    return acc
