"""Student's t and F quantiles for the bench tools, standard library only: the regularized
incomplete beta function by its continued fraction (Lentz), inverted by bisection."""
import math
from functools import lru_cache


def _betacf(a, b, x):
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        h *= d * c
        if abs(d * c - 1) < 1e-13:
            break
    return h


def ibeta(x, a, b):
    """I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


@lru_cache(maxsize=None)
def t975(dof):
    """The 0.975 quantile of Student's t with `dof` degrees of freedom."""
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        cdf = 1 - 0.5 * ibeta(dof / (dof + mid * mid), dof / 2, 0.5)
        lo, hi = (mid, hi) if cdf < 0.975 else (lo, mid)
    return (lo + hi) / 2


@lru_cache(maxsize=None)
def f95(d1, d2):
    """The 0.95 quantile of F(d1, d2)."""
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ibeta(mid, d1 / 2, d2 / 2) < 0.95 else (lo, mid)
    u = (lo + hi) / 2
    return d2 * u / (d1 * (1 - u))
