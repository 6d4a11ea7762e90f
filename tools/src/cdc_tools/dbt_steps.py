"""dbt commands one after another in one process, so that they share its Spark session (the
sparkpy adapter's local session, kept between invocations of dbt's programmatic runner): the
second command starts no JVM.

    python -m cdc_tools.dbt_steps 'build --exclude-resource-type unit_test' \\
        'test --resource-type unit_test' -- --target local ...

Each command is followed by the arguments after `--`. Stops at the first command that fails,
with dbt's exit code: 1 when something it ran failed, 2 when dbt itself did.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any


def run(commands: Sequence[str], common: Sequence[str], invoke: Callable[[list[str]], Any]) -> int:
    """Invokes each command with the common arguments until one fails; dbt's exit code."""
    for command in commands:
        result = invoke([*shlex.split(command), *common])
        if not result.success:
            return 1 if result.exception is None else 2
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from dbt.cli.main import dbtRunner

    args = list(sys.argv[1:] if argv is None else argv)
    split = args.index("--") if "--" in args else len(args)
    return run(args[:split], args[split + 1 :], dbtRunner().invoke)


if __name__ == "__main__":
    sys.exit(main())
