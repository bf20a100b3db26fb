"""``python -m referee.cli``: the same as the ``referee`` command."""

from . import main

main()
