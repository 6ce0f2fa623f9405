"""Does adding a tool's weights in ascending order agree with the reference on near ties?

The reference adds each tool's weights (3·w for a name word, w for a body word, w = log(1 + n/df))
in its task's set order, which PYTHONHASHSEED shuffles. Two tools whose scores are equal as real
numbers but sums of different weights can then compare either way. This generates such pairs at
random and counts, for each, whether every summation order gives one answer and whether the
workbench's order (every term of the task sorted by value, each tool adding its own in that order)
gives an answer the reference can give. Usage: python3 scripts/near_ties.py [TRIALS]
"""
import itertools
import math
import random
import sys
from fractions import Fraction


def weight(n, df):
    return math.log(1 + n / df)


def term(n, df, units):
    return 3 * weight(n, df) if units == 3 else weight(n, df)


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    rng = random.Random(1)
    ties = one_answer = agrees = 0
    for _ in range(trials):
        n = rng.randint(3, 12)
        words = [(rng.randint(1, n), rng.choice([0, 1, 1, 3]), rng.choice([0, 1, 1, 3])) for _ in range(rng.randint(3, 8))]
        pa = pb = Fraction(1)
        for df, ua, ub in words:
            pa *= Fraction(n + df, df) ** ua
            pb *= Fraction(n + df, df) ** ub
        terms_a = sorted((df, ua) for df, ua, _ in words if ua)
        terms_b = sorted((df, ub) for df, _, ub in words if ub)
        if pa != pb or terms_a == terms_b:
            continue  # not equal as real numbers, or the same terms (equal in every order)
        ties += 1
        ordered = sorted([(term(n, df, ua), "a") for df, ua, _ in words if ua] + [(term(n, df, ub), "b") for df, _, ub in words if ub])
        sa = sb = 0.0
        for v, who in ordered:
            if who == "a":
                sa += v
            else:
                sb += v
        ours = (sa > sb) - (sa < sb)
        orders = itertools.permutations(range(len(words)))  # every order: at most 8! = 40,320
        answers = set()
        for order in orders:
            xa = xb = 0.0
            for i in order:
                df, ua, ub = words[i]
                if ua:
                    xa += term(n, df, ua)
                if ub:
                    xb += term(n, df, ub)
            answers.add((xa > xb) - (xa < xb))
        one_answer += len(answers) == 1
        agrees += ours in answers
    print("%d near ties; %d with one answer in every order; the ascending order gives one of the reference's answers in %d" % (ties, one_answer, agrees))


main()
