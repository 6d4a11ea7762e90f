"""The parts of a query's lambdas that Spark computes again for every element although they read
nothing that changes: no column and no lambda variable bound outside them. Spark folds no
expression that holds lambdas of its own (`transform(sequence(...), ...)` over literals), so
such a part inside `map_filter`'s lambda runs once per value of every row; bound once, in a
column of a one-row subquery for instance, it runs once per query."""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame

Expression = Any  # a py4j proxy of a Catalyst expression


def constants_in_lambdas(frame: DataFrame) -> list[str]:
    """The SQL of each such part of `frame`'s optimized plan (subqueries included)."""
    found: list[str] = []
    plans = [frame._jdf.queryExecution().optimizedPlan()]
    while plans:
        plan = plans.pop()
        for expression in _items(plan.expressions()):
            _free(expression, False, found)
        plans.extend(_items(plan.children()) + _items(plan.subqueries()))
    return found


def _free(expression: Expression, in_lambda: bool, found: list[str]) -> set[Any]:
    """What `expression` reads that may change from one call to the next (attributes, lambda
    variables not bound inside it), noting in `found` its constant parts inside a lambda."""
    kind = expression.getClass().getSimpleName()
    if kind == "NamedLambdaVariable":
        return {expression.exprId().id()}
    if kind in ("AttributeReference", "OuterReference"):
        return {"attribute"}
    inside = in_lambda or kind == "LambdaFunction"
    children = [(child, _free(child, inside, found)) for child in _items(expression.children())]
    free = set().union(*(reads for _, reads in children))
    if kind == "LambdaFunction":
        free -= {argument.exprId().id() for argument in _items(expression.arguments())}
    if inside and free:
        found += [child.sql() for child, reads in children if not reads and _computed(child)]
    return free


def _computed(expression: Expression) -> bool:
    """A value computed when evaluated: not a literal, nor a lambda (a function, not a value)."""
    kind = expression.getClass().getSimpleName()
    return kind not in ("Literal", "LambdaFunction") and expression.deterministic()


def _items(sequence: Any) -> list[Any]:
    iterator = sequence.iterator()
    items = []
    while iterator.hasNext():
        items.append(iterator.next())
    return items
