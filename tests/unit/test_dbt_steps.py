"""cdc_tools.dbt_steps: dbt commands in turn, each with the common arguments, until one fails."""

from __future__ import annotations

from types import SimpleNamespace

from cdc_tools.dbt_steps import run

COMMON = ["--target", "local", "--vars", '{landing_root: "/tmp/landing"}']


def _invoker(outcomes: list[SimpleNamespace]):
    calls: list[list[str]] = []

    def invoke(args: list[str]) -> SimpleNamespace:
        calls.append(args)
        return outcomes[len(calls) - 1]

    return invoke, calls


def test_every_command_runs_with_the_common_arguments_in_turn() -> None:
    ok = SimpleNamespace(success=True, exception=None)
    invoke, calls = _invoker([ok, ok])
    assert run(["build --exclude-resource-type unit_test", "test --resource-type unit_test"], COMMON, invoke) == 0
    assert calls == [
        ["build", "--exclude-resource-type", "unit_test", *COMMON],
        ["test", "--resource-type", "unit_test", *COMMON],
    ]


def test_a_failed_command_stops_the_rest_with_dbts_exit_code() -> None:
    failed = SimpleNamespace(success=False, exception=None)
    crashed = SimpleNamespace(success=False, exception=RuntimeError("no profile"))
    for outcome, code in ((failed, 1), (crashed, 2)):
        invoke, calls = _invoker([outcome])
        assert run(["build", "test"], COMMON, invoke) == code
        assert calls == [["build", *COMMON]]
