"""The typer application behind ``referee`` (see :mod:`referee.cli` for the entry point).

Heavy modules (numpy, rich tables) are imported inside the commands that need them.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from typing import Annotated, Any, NoReturn

import typer

from .cli import error_text, run_roll
from .errors import DiceLimitError, RefereeError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    invoke_without_command=True,
    help="Resolve tabletop RPG dice: fair rolls, exact odds, bulk simulation.\n\n"
    "Run with no command for an interactive prompt.",
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _add_systems() -> None:
    """Add each registered system's command group; when the command line names
    one system (or a core command), import only what it needs."""
    import importlib
    import sys

    from .systems import SYSTEMS

    first = sys.argv[1] if len(sys.argv) > 1 and sys.argv[0].endswith("referee") else None
    named = [s for s in SYSTEMS.values() if first in (s.name, *s.aliases)]
    core = first in ("roll", "odds", "sample")
    for system in [] if core else (named or list(SYSTEMS.values())):
        sub = importlib.import_module(f"referee.{system.cli}").app
        app.add_typer(sub, name=system.name)
        for alias in system.aliases:
            app.add_typer(sub, name=alias, hidden=True)


_add_systems()

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the documented JSON instead of text.")]
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed for reproducible rolls (default: OS secure source)."),
]


def _fail(exc: RefereeError) -> NoReturn:
    """One line naming the problem (and a caret under its column); exit status 2."""
    typer.echo(error_text(exc), err=True)
    raise typer.Exit(2)


def _emit(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False))


@app.callback()
def _main(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        from .repl import run_repl

        run_repl()


@app.command(
    epilog="Examples:\n\n  referee roll 4d6kh3\n\n"
    "  referee roll '1d20+5 # attack' -n 3 --seed 7\n\n"
    "  referee roll 3d-3 6d10>=8 --json"
)
def roll(
    exprs: Annotated[list[str], typer.Argument(metavar="EXPR...", help="Dice expressions.")],
    n: Annotated[int, typer.Option("-n", min=1, max=10_000, help="Roll each this many times.")] = 1,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll dice: the breakdown, and the chance of that total or better."""
    code = run_roll(exprs, n, seed, as_json)
    if code:
        raise typer.Exit(code)


@app.command(
    epilog="Examples:\n\n  referee odds 3d6\n\n  referee odds 4d6kh3 --at-least 15\n\n"
    "  referee odds 2d6 --at-most 7 --json"
)
def odds(
    expr: Annotated[str, typer.Argument(help="A dice expression.")],
    at_least: Annotated[int | None, typer.Option("--at-least", help="P(total >= X).")] = None,
    at_most: Annotated[int | None, typer.Option("--at-most", help="P(total <= X).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact odds: every outcome with its fraction and percentage, and a bar chart."""
    from . import odds as odds_fn
    from .render import fraction, odds_json, percent, shown_rows

    if at_least is not None and at_most is not None:
        typer.echo("error: give --at-least or --at-most, not both", err=True)
        raise typer.Exit(2)
    op, value = (">=", at_least) if at_least is not None else ("<=", at_most)
    try:
        o = odds_fn(expr)
    except RefereeError as exc:
        _fail(exc)
    if as_json:
        _emit(odds_json(o, op if value is not None else None, value))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{o.expression}: mean {float(o.mean):.3f}, stdev {o.stdev:.3f}")
    table.add_column("total", justify="right")
    table.add_column("probability", justify="right")
    table.add_column("%", justify="right")
    table.add_column("")
    top = max(o.counts)
    rows, omitted = shown_rows(o.outcomes, o.counts, o.denominator)
    for total, count in rows:
        p = Fraction(count, o.denominator)
        table.add_row(str(total), fraction(p), percent(p), "█" * round(40 * count / top))
    console = Console()
    console.print(table)
    if omitted:
        console.print(f"({omitted})")
    for note in o.notes:
        console.print(f"note: {note}")
    if value is not None:
        p = o.p(op, value)
        console.print(f"P(total {op} {value}) = {fraction(p)} = {percent(p)}")


@app.command(
    epilog="Examples:\n\n  referee sample 3d6 -n 1000000\n\n"
    "  referee sample 8d6! -n 100000 --seed 1 --json"
)
def sample(
    expr: Annotated[str, typer.Argument(help="A dice expression.")],
    n: Annotated[int, typer.Option("-n", help="How many rolls to simulate.")] = 100_000,
    seed: SeedOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Simulate N rolls (vectorised): summary statistics and a histogram."""
    import numpy as np

    from .sampling import iter_samples

    try:
        if n < 1:
            raise DiceLimitError(f"-n {n}: sample at least one roll")
        chunks = iter_samples(expr, n, seed=seed)
        hist: dict[int, int] = {}
        total = 0.0
        sq = 0.0
        start = time.perf_counter()
        progress = None
        done = 0
        for chunk in chunks:
            values, counts = np.unique(chunk, return_counts=True)
            for v, c in zip(values.tolist(), counts.tolist(), strict=True):
                hist[v] = hist.get(v, 0) + c
            total += float(chunk.sum(dtype=np.float64))
            sq += float(np.square(chunk, dtype=np.float64).sum())
            done += len(chunk)
            if progress is None and time.perf_counter() - start > 1 and done < n:
                from rich.progress import Progress

                progress = Progress(transient=True)
                progress.start()
                task = progress.add_task("sampling", total=n)
            if progress is not None:
                progress.update(task, completed=done)
        if progress is not None:
            progress.stop()
    except RefereeError as exc:
        _fail(exc)
    mean = total / n if n else 0.0
    stdev = max(0.0, sq / n - mean * mean) ** 0.5 if n else 0.0
    keys = sorted(hist)
    summary = {
        "expression": expr,
        "n": n,
        "seed": seed,
        "mean": mean,
        "stdev": stdev,
        "min": keys[0] if keys else None,
        "max": keys[-1] if keys else None,
        "histogram": [[k, hist[k]] for k in keys],
    }
    if as_json:
        _emit(summary)
        return
    typer.echo(
        f"{expr}: {n:,} rolls, mean {mean:.4f}, stdev {stdev:.4f}, "
        f"range {summary['min']}..{summary['max']}"
    )
    from .render import shown_rows

    top = max(hist.values()) if hist else 1
    rows, omitted = shown_rows(keys, [hist[k] for k in keys], n)
    for k, count in rows:
        typer.echo(f"{k:>6} {count / n:7.2%} {'█' * round(40 * count / top)}")
    if omitted:
        typer.echo(f"({omitted})")
