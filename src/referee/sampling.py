"""Stage 4 of the pipeline: bulk simulation with numpy, vectorised across rolls.

The method is chosen per node:

* **table**: where a sub-expression's exact distribution has at most 65,536
  equally likely cases (``3d6`` has 216), it is sampled by drawing one uniform
  integer per roll and looking the outcome up in a table of those cases. This
  is exact (no floating point) and cheaper than rolling each die.
* **chunked table**: a plain sum of many dice (``10d6``) is split into equal
  chunks that each fit a table, and the chunks are added.
* **dice**: anything else (rerolls, explosions, keep/drop, success counting)
  rolls a matrix of faces and applies each modifier to whole columns at once,
  with the roller's caps.

Work is done in chunks of rows, so ``n`` up to ``Limits.sample_n`` never needs
more memory than the returned array itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from .ast import (
    FUDGE,
    Arith,
    Dice,
    Expression,
    Func,
    Group,
    Literal,
    Neg,
    Node,
    window,
)
from .columns import IntArray, compare, never, rational, rational_function, score
from .errors import DiceEvalError, DiceLimitError
from .limits import DEFAULT_LIMITS, Limits
from .odds import bounds, odds, whole_valued
from .parser import format_expr, parse, worst_case_dice
from .rng import numpy_seed

__all__ = ["iter_samples", "sample", "summarize"]

TABLE_MAX = 65_536
"""Most equally likely cases a lookup table may hold."""
CHUNK_CELLS = 1 << 22
"""About how many dice (or table draws) one chunk of rows may hold."""


def _cases(node: Node) -> int | None:
    """How many equally likely cases ``node`` has, if it is rolled without rerolls/explosions."""
    if isinstance(node, Literal):
        return 1
    if isinstance(node, (Group, Func)):
        return None  # simulated as written (their parts may still use tables)
    if isinstance(node, Dice):
        if node.reroll is not None or node.explode is not None:
            return None
        sides: int = 3 if node.sides == FUDGE else node.sides
        return int(sides ** min(node.count, 64))
    if isinstance(node, Neg):
        return _cases(node.operand)
    total = _cases(node.first)
    for _, sub in node.rest:
        c = _cases(sub)
        if total is None or c is None:
            return None
        total *= c
        if total > TABLE_MAX:
            return None
    return total


def _table(node: Node, limits: Limits) -> tuple[npt.NDArray[Any], int]:
    o = odds(Expression(node), limits)
    values = np.repeat(np.array(o.outcomes, dtype=np.int64), np.array(o.counts, dtype=np.int64))
    return values, o.denominator


class _Simulator:
    def __init__(self, rng: np.random.Generator, limits: Limits) -> None:
        self.rng = rng
        self.limits = limits
        self.tables: dict[Node, tuple[npt.NDArray[Any], int]] = {}

    def table_draw(self, node: Node, m: int) -> IntArray:
        if node not in self.tables:
            self.tables[node] = _table(node, self.limits)
        values, denom = self.tables[node]
        dtype = np.uint8 if denom <= 256 else np.uint16 if denom <= 65536 else np.uint32
        idx = self.rng.integers(0, denom, m, dtype=dtype)
        return values[idx]  # type: ignore[no-any-return]

    def run(self, node: Node, m: int) -> IntArray:
        cases = _cases(node)
        if cases is not None and cases <= TABLE_MAX:
            return self.table_draw(node, m)
        if isinstance(node, Literal):
            return np.full(m, node.value, dtype=np.int64)
        if isinstance(node, Neg):
            return -self.run(node.operand, m)
        if isinstance(node, Dice):
            return self.dice(node, m)
        if isinstance(node, Group):
            return self.group(node, m)
        if isinstance(node, Func):
            num, den = self.exact(node, m)
            return num // den  # a fraction leaving a function rounds down
        assert isinstance(node, Arith)
        acc = self.run(node.first, m)
        for op, sub in node.rest:
            right = self.run(sub, m)
            if op == "+":
                acc = acc + right
            elif op == "-":
                acc = acc - right
            elif op == "*":
                acc = acc * right
            else:
                if not right.all():
                    raise DiceEvalError(
                        f"division by zero: the divisor {format_expr(sub)} came to 0"
                    )
                acc = acc // right
        return acc

    def group(self, node: Group, m: int) -> IntArray:
        n = len(node.items)
        values = np.stack([self.run(i, m) for i in node.items], axis=1)
        lo, hi = window(node.keep, n)
        if (lo, hi) != (0, n):
            values = np.sort(values, axis=1)[:, n - hi : n - lo]
        if node.success is not None:
            values = score(values, node)
        return np.asarray(values.sum(axis=1), dtype=np.int64)

    def exact(self, node: Node, m: int) -> tuple[IntArray, IntArray]:
        """A value inside a function's parentheses, as exact fractions: numerators and
        (positive, lowest-terms) denominators."""
        if isinstance(node, Func):
            args = [self.exact(a, m) for a in node.args]
            return rational_function(node.name, args)
        if whole_valued(node, exact=True):
            value = self.run(node, m)
            return value, np.ones_like(value)
        if isinstance(node, Neg):
            num, den = self.exact(node.operand, m)
            return -num, den
        if isinstance(node, Group):
            raise DiceLimitError(
                f"the sampler does not rank sub-rolls that are fractions ({format_expr(node)}); "
                "round them inside the group, or use exact odds"
            )
        assert isinstance(node, Arith)
        num, den = self.exact(node.first, m)
        for op, sub in node.rest:
            rnum, rden = self.exact(sub, m)
            if op == "/" and not rnum.all():
                raise DiceEvalError(f"division by zero: the divisor {format_expr(sub)} came to 0")
            num, den = rational(op, num, den, rnum, rden)
        return num, den

    def dice(self, node: Dice, m: int) -> IntArray:
        plain = node.reroll is None and node.explode is None
        if plain and not node.keep and node.success is None:
            return self.chunked(node, m)
        return self.matrix(node, m)

    def chunked(self, node: Dice, m: int) -> IntArray:
        n = 3 if node.sides == FUDGE else node.sides
        per = max(1, int(math.log(TABLE_MAX) / math.log(n))) if n > 1 else node.count
        if n > TABLE_MAX:
            return self.matrix(node, m)
        pieces = math.ceil(node.count / per)
        total = np.zeros(m, dtype=np.int64)
        left = node.count
        for i in range(pieces):
            size = left // (pieces - i)
            left -= size
            total += self.table_draw(Dice(size, node.sides), m)
        return total

    def faces(self, node: Dice, shape: tuple[int, ...]) -> IntArray:
        lo, hi = (-1, 1) if node.sides == FUDGE else (1, node.sides)
        faces = self.rng.integers(lo, hi + 1, shape, dtype=np.int64)
        reroll = node.reroll
        if reroll is not None and reroll.once:
            mask = compare(faces, reroll.cond)
            faces[mask] = self.rng.integers(lo, hi + 1, int(mask.sum()), dtype=np.int64)
        elif reroll is not None:
            # ``r`` is the die conditioned on not matching: uniform on the faces that stand.
            every = np.arange(lo, hi + 1, dtype=np.int64)
            standing = every[~compare(every, reroll.cond)]
            faces = standing[self.rng.integers(0, len(standing), shape)]
        return faces

    def matrix(self, node: Dice, m: int) -> IntArray:
        if node.adds_dice and node.explode_cond is not None:
            return self.added(node, m)
        values = self.faces(node, (m, node.count))
        cond = node.explode_cond
        if cond is not None:
            last = values.copy()
            for _ in range(self.limits.explosions):
                mask = compare(last, cond)
                k = int(mask.sum())
                if not k:
                    break
                new = self.faces(node, (k,))
                values[mask] += new
                last[:] = 0 if not cond.test(0) else never(node, cond)
                last[mask] = new
        lo, hi = window(node.keep, node.count)
        if (lo, hi) != (0, node.count):
            values = np.sort(values, axis=1)[:, node.count - hi : node.count - lo]
        if node.success is not None:
            return np.asarray(score(values, node).sum(axis=1), dtype=np.int64)
        return np.asarray(values.sum(axis=1), dtype=np.int64)

    def added(self, node: Dice, m: int) -> IntArray:
        """``!`` and ``!p``: every roll of a chain is a die of its own (one column per
        die and level of explosion; a die that never came to be is masked out)."""
        cond = node.explode_cond
        assert cond is not None
        first = self.faces(node, (m, node.count))
        columns, masks = [first], [np.ones_like(first, dtype=bool)]
        alive = compare(first, cond)
        for _ in range(self.limits.explosions):
            k = int(alive.sum())
            if not k:
                break
            faces = np.zeros_like(first)
            faces[alive] = self.faces(node, (k,))
            columns.append(faces - node.penalty)
            masks.append(alive)
            alive = alive & compare(faces, cond)
        values = np.concatenate(columns, axis=1)
        valid = np.concatenate(masks, axis=1)
        score = (
            compare(values, node.success).astype(np.int64) if node.success is not None else values
        )
        if not node.keep:
            return np.asarray(np.where(valid, score, 0).sum(axis=1), dtype=np.int64)
        # Rank each row's dice from the highest; dice that never came to be rank last.
        big = np.iinfo(np.int64).max // 4
        order = np.argsort(-np.where(valid, values, -big), axis=1, kind="stable")
        ranked = np.take_along_axis(np.where(valid, score, 0), order, axis=1)
        lo = np.zeros(m, dtype=np.int64)
        hi = valid.sum(axis=1).astype(np.int64)
        for keep in node.keep:  # each rule acts on the dice the ones before kept
            size = hi - lo
            k = np.clip(size - keep.count if keep.drop else np.full(m, keep.count), 0, size)
            if keep.highest != keep.drop:
                hi = lo + k
            else:
                lo = hi - k
        rank = np.arange(ranked.shape[1])
        inside = (rank >= lo[:, None]) & (rank < hi[:, None])
        return np.asarray(np.where(inside, ranked, 0).sum(axis=1), dtype=np.int64)


def _dtype(lo: int, hi: int) -> type[np.signedinteger[Any]]:
    for dt in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dt)
        if info.min <= lo and hi <= info.max:
            return dt
    raise DiceLimitError(f"totals from {lo} to {hi} do not fit in 64-bit integers")


def _prepare(
    expr: str | Expression, n: int, limits: Limits
) -> tuple[Node, type[np.signedinteger[Any]], int]:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise DiceLimitError(f"the number of rolls must be a whole number >= 0, not {n!r}")
    if n > limits.sample_n:
        raise DiceLimitError(f"{n:,} rolls is more than the limit of {limits.sample_n:,}")
    parsed = expr if isinstance(expr, Expression) else parse(expr, limits)
    root = parsed.root
    lo, hi = bounds(root, limits)
    dtype = _dtype(lo, hi)

    rows = max(1, CHUNK_CELLS // max(1, worst_case_dice(root, limits)))
    return root, dtype, rows


def iter_samples(
    expr: str | Expression,
    n: int,
    seed: int | str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[npt.NDArray[np.integer[Any]]]:
    """Yield ``n`` simulated totals in chunks (for streaming statistics over huge ``n``)."""
    root, dtype, rows = _prepare(expr, n, limits)
    sim = _Simulator(np.random.default_rng(numpy_seed(seed)), limits)
    done = 0
    while done < n:
        m = min(rows, n - done)
        yield sim.run(root, m).astype(dtype, copy=False)
        done += m


def sample(
    expr: str | Expression,
    n: int,
    seed: int | str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> npt.NDArray[np.integer[Any]]:
    """``n`` simulated totals of ``expr`` as a numpy array of the smallest integer type that fits.

    ``seed`` (any integer or string) makes the run reproducible (numpy's PCG64);
    ``None`` seeds from the operating system.

    >>> import referee
    >>> rolls = referee.sample("3d6", 100_000, seed=1)
    >>> int(rolls.min()) >= 3 and int(rolls.max()) <= 18, rolls.dtype.name
    (True, 'int8')
    """
    root, dtype, rows = _prepare(expr, n, limits)
    out = np.empty(n, dtype=dtype)
    sim = _Simulator(np.random.default_rng(numpy_seed(seed)), limits)
    done = 0
    while done < n:
        m = min(rows, n - done)
        out[done : done + m] = sim.run(root, m)
        done += m
    return out


def summarize(
    expr: str,
    n: int,
    seed: int | str | None = None,
    progress: Callable[[int], None] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """Simulate ``n`` rolls in chunks and summarise them (the ``sample`` command's figures).

    Returns ``{"expression", "n", "seed", "mean", "stdev", "min", "max",
    "histogram": [[total, count], ...]}``; ``progress`` is called with the
    rolls done after each chunk.

    Raises:
        DiceLimitError: ``n`` below 1 or over the limit, or as :func:`sample`.
    """
    if isinstance(n, int) and n < 1:
        raise DiceLimitError(f"-n {n}: sample at least one roll")
    hist: dict[int, int] = {}
    total = sq = 0.0
    done = 0
    for chunk in iter_samples(expr, n, seed=seed, limits=limits):
        values, counts = np.unique(chunk, return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist(), strict=True):
            hist[v] = hist.get(v, 0) + c
        total += float(chunk.sum(dtype=np.float64))
        sq += float(np.square(chunk, dtype=np.float64).sum())
        done += len(chunk)
        if progress is not None:
            progress(done)
    mean = total / n
    keys = sorted(hist)
    return {
        "expression": expr,
        "n": n,
        "seed": seed,
        "mean": mean,
        "stdev": max(0.0, sq / n - mean * mean) ** 0.5,
        "min": keys[0],
        "max": keys[-1],
        "histogram": [[k, hist[k]] for k in keys],
    }
