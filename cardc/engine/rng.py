"""A tiny deterministic random generator whose whole state is one integer.

SplitMix64: the same seed gives the same numbers on every machine and
Python version, and a state that is a single int makes `clone()` and JSON
saving free.  Quality is ample for shuffling cards.
"""
MASK = (1 << 64) - 1
#: seeds are whole numbers 0 .. 2^64 - 1: each gives its own game (larger ones
#: would wrap round onto these, so they are refused, not folded)
SEED_MAX = MASK


def check_seed(seed) -> int:
    """`seed` if it is a seed, else ValueError saying what a seed is."""
    if type(seed) is not int or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed {seed!r} is not a whole number from 0 to 2^64-1 "
                         f"({SEED_MAX:,})")
    return seed


def seed_state(seed: int) -> int:
    return (check_seed(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK


def step(s: int) -> tuple[int, int]:
    """Advance the state; return (new state, a 64-bit random number)."""
    s = (s + 0x9E3779B97F4A7C15) & MASK
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return s, z ^ (z >> 31)


def below(s: int, n: int) -> tuple[int, int]:
    """(new state, a number in range(n))."""
    s, z = step(s)
    return s, (z * n) >> 64


def shuffle(s: int, xs: list) -> int:
    """Fisher-Yates of `xs` in place, drawing as `below` does; the new state.
    (`step` and `below` written in: every shuffle of every game runs this loop.)"""
    for i in range(len(xs) - 1, 0, -1):
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        xs[i], xs[j] = xs[j], xs[i]
    return s
