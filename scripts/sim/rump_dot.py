# Exact simulation of left-to-right dot products (docs/bounds.md, bounds::dot) in tiny binary formats with
# subnormals, round to nearest even, Fractions. Checks
#   rounded products:  |s^ - s| <= (n-1) u (S + E) + E,  E = u S + n eta
#   FMA chain:         |s^ - s| <= n u S + eta ((1+u)^n - 1) / u
# and reports the largest ratio error / bound seen for each.
from fractions import Fraction as F
import random, math, sys

import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rump_summation import rn, floats  # noqa: E402

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
worst = {'prod': (0, None), 'fma': (0, None)}
for p in (2, 3, 4):
    emin, emax = -4, 5
    u = F(1, 2**p)
    eta = F(2)**(emin - p + 1) / 2       # half the subnormal spacing
    fs = floats(p, emin, emax)
    small = [v for v in fs if abs(v) <= 2]
    tiny = [v for v in fs if abs(v) <= F(2)**(emin // 2)]
    for it in range(20000):
        n = random.randint(1, 30)
        kind = random.random()
        pool = fs if kind < 0.3 else small if kind < 0.6 else tiny
        if kind > 0.85:
            # stagnation: a big first term, then tiny same-sign products
            x = [random.choice([v for v in fs if 1 <= v <= 4])] + [random.choice([v for v in fs if 0 < v <= u]) for _ in range(n - 1)]
            y = [F(1)] * n
        else:
            x = [random.choice(pool) for _ in range(n)]
            y = [random.choice(pool) for _ in range(n)]
        exact = sum(a * b for a, b in zip(x, y))
        S = sum(abs(a * b) for a, b in zip(x, y))
        # overflow guard: skip if anything could exceed the format's range
        big = F(2)**emax * (2 - F(2)**(1 - p))
        if 2 * 2 * S > big:
            continue
        s = F(0)
        for a, b in zip(x, y):
            s = rn(s + rn(a * b, p, emin), p, emin)
        E = u * S + n * eta
        bound = (n - 1) * u * (S + E) + E
        r = abs(s - exact) / bound if bound else (0 if s == exact else float('inf'))
        if r > worst['prod'][0]:
            worst['prod'] = (r, (p, x, y))
        s = F(0)
        for a, b in zip(x, y):
            s = rn(s + a * b, p, emin)
        bound = n * u * S + eta * (((1 + u)**n - 1) / u)
        r = abs(s - exact) / bound if bound else (0 if s == exact else float('inf'))
        if r > worst['fma'][0]:
            worst['fma'] = (r, (p, x, y))
for k, (r, case) in worst.items():
    print(k, float(r), case[0] if case else None, [str(v) for v in case[1]][:8] if case else None, [str(v) for v in case[2]][:8] if case else None)
