"""The CLI reference, drawn from the commands themselves (``docs/reference/cli.md``,
filled in by ``docs/hooks.py`` when the site is built, so it never drifts): every
visible command, as its ``--help`` prints it, examples and all."""

from __future__ import annotations

from typing import Any

__all__ = ["WIDTH", "markdown", "paths"]

WIDTH = 88
"""The width the help text is wrapped to."""


def _walk(command: Any, ctx: Any, depth: int, out: list[tuple[int, Any, Any]]) -> None:
    out.append((depth, command, ctx))
    if not hasattr(command, "list_commands"):
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:  # the aliases (psi-punk, gurps4e...) are hidden
            continue
        _walk(sub, sub.context_class(sub, info_name=name, parent=ctx), depth + 1, out)


def _commands() -> list[tuple[int, Any, Any]]:
    # here, not at the top: each import costs 32-159 ms of start-up otherwise (issue 53)
    import typer.main

    from .app import app

    root = typer.main.get_command(app)
    out: list[tuple[int, Any, Any]] = []
    ctx = root.context_class(root, info_name="referee", terminal_width=WIDTH,
                             max_content_width=WIDTH)  # fmt: skip
    _walk(root, ctx, 0, out)
    return out


def paths() -> list[str]:
    """Every visible command's path: ``referee``, ``referee gurps``, ``referee gurps check``..."""
    return [ctx.command_path for _depth, _command, ctx in _commands()]


def markdown() -> str:
    """Every visible command under a heading of its path, with its ``--help`` text."""
    parts = []
    for depth, command, ctx in _commands():
        if depth:
            parts.append(f"{'#' * min(depth + 1, 4)} `{ctx.command_path}`\n")
        parts.append(f"```text\n{command.get_help(ctx).rstrip()}\n```\n")
    return "\n".join(parts)
