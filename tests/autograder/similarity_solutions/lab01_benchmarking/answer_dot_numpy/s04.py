def dot_numpy(a, b):
    # .item() turns the np.float32 scalar into a Python float
    return np.dot(a, b).item()
