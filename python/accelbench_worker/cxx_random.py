"""The C++ standard library's random engines and distributions as libstdc++ (GCC 11 and later)
implements them, so that a Python twin draws the same synthetic data as its C++ workload:
std::mt19937 and std::mt19937_64 seeded with one integer, std::uniform_int_distribution (Lemire's
nearly divisionless method), std::lognormal_distribution (the Marsaglia polar normal) and
std::shuffle (two swap positions from one draw). Standard library only."""

from __future__ import annotations

import math
import random

_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF


def mt19937(seed: int) -> random.Random:
    """A random.Random whose getrandbits(32) is std::mt19937(seed)'s sequence (CPython's generator is
    MT19937; only its seeding differs, so the state is set as std::mt19937's constructor sets it)."""
    state = [seed & _M32]
    for i in range(1, 624):
        prev = state[-1]
        state.append((1812433253 * (prev ^ (prev >> 30)) + i) & _M32)
    r = random.Random()
    r.setstate((3, tuple(state) + (624,), None))
    return r


class MT19937_64:
    """std::mt19937_64(seed)."""

    def __init__(self, seed: int):
        mt = [seed & _M64]
        for i in range(1, 312):
            prev = mt[-1]
            mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _M64)
        self.mt = mt
        self.index = 312

    def _twist(self) -> None:
        mt = self.mt
        upper, lower = 0xFFFFFFFF80000000, 0x7FFFFFFF
        for i in range(312):
            x = (mt[i] & upper) | (mt[(i + 1) % 312] & lower)
            xa = x >> 1
            if x & 1:
                xa ^= 0xB5026F5AA96619E9
            mt[i] = mt[(i + 156) % 312] ^ xa
        self.index = 0

    def __call__(self) -> int:
        if self.index >= 312:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y


def uniform_int64(engine: MT19937_64, low: int, high: int) -> int:
    """std::uniform_int_distribution<T>{low, high}(engine) for a 64-bit engine."""
    span = high - low + 1
    if span > _M64:
        return low + engine()
    product = engine() * span
    if product & _M64 < span:
        threshold = ((1 << 64) - span) % span
        while product & _M64 < threshold:
            product = engine() * span
    return low + (product >> 64)


def uniform_int32(engine: random.Random, low: int, high: int) -> int:
    """std::uniform_int_distribution<int>{low, high}(engine) for std::mt19937 (see mt19937)."""
    span = high - low + 1
    product = engine.getrandbits(32) * span
    if product & _M32 < span:
        threshold = ((1 << 32) - span) % span
        while product & _M32 < threshold:
            product = engine.getrandbits(32) * span
    return low + (product >> 32)


def canonical(engine: MT19937_64) -> float:
    """std::generate_canonical<double, 53>(engine) for a 64-bit engine."""
    value = engine() / 18446744073709551616.0
    return value if value < 1.0 else math.nextafter(1.0, 0.0)


class LognormalDistribution:
    """std::lognormal_distribution<double>(m, s): exp of the polar method's normal, which makes two
    values at a time and keeps the second for the next call."""

    def __init__(self, m: float, s: float):
        self.m, self.s = m, s
        self.saved = None

    def __call__(self, engine: MT19937_64) -> float:
        if self.saved is not None:
            normal, self.saved = self.saved, None
        else:
            while True:
                x = 2.0 * canonical(engine) - 1.0
                y = 2.0 * canonical(engine) - 1.0
                r2 = x * x + y * y
                if r2 <= 1.0 and r2 != 0.0:
                    break
            mult = math.sqrt(-2.0 * math.log(r2) / r2)
            self.saved = x * mult
            normal = y * mult
        return math.exp(normal * self.s + self.m)


def llround(value: float) -> int:
    """std::llround: halves away from zero."""
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


def shuffle(items: list, engine: MT19937_64) -> None:
    """std::shuffle(items.begin(), items.end(), engine) for a 64-bit engine and fewer than 2^32 items:
    the first swap alone when the count is even, then two swap positions from one draw."""
    n = len(items)
    if n == 0:
        return
    i = 1
    if n % 2 == 0:
        j = uniform_int64(engine, 0, 1)
        items[i], items[j] = items[j], items[i]
        i += 1
    while i != n:
        b0 = i + 1
        b1 = b0 + 1
        x = uniform_int64(engine, 0, b0 * b1 - 1)
        p1, p2 = x // b1, x % b1
        items[i], items[p1] = items[p1], items[i]
        i += 1
        items[i], items[p2] = items[p2], items[i]
        i += 1
