from fractions import Fraction


def arithmetic_intensity(flops, nbytes):
    # exact ratio first, then one rounding to float
    return float(Fraction(flops) / Fraction(nbytes))
