"""What a bytecode costs as the code it sits in grows, on this machine.

The same statements, spread over more and more distinct lines of code
(functions of 35 statements each, called in turn), timed per statement.
On the twelfth wave's machine (AMD EPYC) a statement cost 12 ns while the
code run over and over held up to 350 distinct statements, 17 ns at 700,
and 20-21 ns from 1,400 on: past a few thousand distinct bytecodes the
processor no longer keeps up with where the interpreter jumps next (its
branch predictors, most likely; no hardware counters are readable here to
say).  `tools/bytecodes.py --sites` says how many distinct bytecodes a game
spreads its work over: pyminion's decisions spend 90% of their bytecodes in
774 distinct ones, cardc's in 3,000 (unicorn) to 6,700 (ipo), which is why
cardc's count of work a decision (equal to pyminion's at ipo) runs at half
its speed.  A timing, so not a test:

    .venv/bin/python tools/sites_cost.py
"""
import random
import time

OPS = ["a = a + b", "b = b ^ a", "c = d[a & 7]", "a = a & 1023", "d[b & 7] = c",
       "b = (b + 3) & 1023", "a = a + (c & 3)"]


def cost(distinct: int, rnd: random.Random, total: int = 5600) -> float:
    """Nanoseconds a statement, best of 200 runs of `total` statements drawn
    from `distinct` distinct ones."""
    ns: dict = {}
    functions = []
    for i in range(max(1, distinct // 35)):
        body = "\n".join("    " + rnd.choice(OPS) for _ in range(35))
        exec(f"def f{i}(d):\n    a = b = 1\n    c = 0\n{body}\n    return a\n", ns)  # noqa: S102
        functions.append(ns[f"f{i}"])
    d = list(range(8))
    rounds = max(1, total // (35 * len(functions)))

    def run():
        for _ in range(rounds):
            for f in functions:
                f(d)
    run()
    best = float("inf")
    for _ in range(200):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best / (rounds * 35 * len(functions)) * 1e9


def main() -> int:
    rnd = random.Random(1)
    for distinct in (35, 140, 350, 700, 1400, 2800, 5600):
        print(f"{distinct:5d} distinct statements: {cost(distinct, rnd):6.2f} ns a statement")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
