# Recursive summation of floats in a tiny binary format (precision p, with
# subnormals, min exponent emin), round to nearest even; exact arithmetic with
# Fractions. Max of |s^ - s| / ((n-1) u sum|p_i|) over random/adversarial inputs.
from fractions import Fraction as F
import random, math, sys

def rn(x, p, emin):
    if x == 0: return F(0)
    s = -1 if x < 0 else 1
    a = abs(x)
    e = math.floor(math.log2(a.numerator) - math.log2(a.denominator))
    # fix e exactly
    while F(2)**e > a: e -= 1
    while F(2)**(e+1) <= a: e += 1
    e = max(e, emin)
    q = F(2)**(e - p + 1)       # spacing
    m = a / q
    fl = math.floor(m); r = m - fl
    if r > F(1,2) or (r == F(1,2) and fl % 2 == 1): fl += 1
    return s * fl * q

def floats(p, emin, emax):
    out = [F(0)]
    for e in range(emin, emax+1):
        for m in range(2**(p-1), 2**p):
            out.append(F(m) * F(2)**(e-p+1))
    for m in range(1, 2**(p-1)):
        out.append(F(m) * F(2)**(emin-p+1))
    return sorted(set(out + [-v for v in out]))

def trial(vals, p, emin):
    s = F(0)
    for v in vals: s = rn(s + v, p, emin)
    exact = sum(vals, F(0))
    S = sum(abs(v) for v in vals)
    n = len(vals)
    u = F(1, 2**p)
    if S == 0 or n < 2: return 0
    return abs(s - exact) / ((n-1) * u * S)

def main():
    random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    worst = 0
    for p in (2, 3, 4):
        emin, emax = -4, 6
        fs = floats(p, emin, emax)
        small = [v for v in fs if abs(v) <= 4]
        for it in range(20000):
            n = random.randint(2, 40)
            kind = random.random()
            if kind < 0.3:
                vals = [random.choice(fs) for _ in range(n)]
            elif kind < 0.6:
                vals = [random.choice(small) for _ in range(n)]
            else:
                # one big, many tiny of one sign (stagnation)
                big = random.choice([v for v in fs if v > 0])
                tiny = [v for v in fs if 0 < v <= big * F(1, 2**p)] or [big]
                vals = [big] + [random.choice(tiny) * random.choice([1, 1, -1]) for _ in range(n-1)]
            r = trial(vals, p, emin)
            if r > worst:
                worst = r
                print(p, n, float(r), [str(v) for v in vals][:12], flush=True)
    print("worst", float(worst))


if __name__ == '__main__':
    main()
