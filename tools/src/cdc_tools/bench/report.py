"""Pure arithmetic of the benchmark report: per-node seconds from dbt's run_results.json, rates,
the ratios the issue names and the goals they are compared with."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cdc_tools.bench.landing import Segment

AVRO_SUFFIX = "_avro"
CANAL = "canal_json"


def node_seconds(run_results: Mapping[str, Any]) -> dict[str, float]:
    """unique_id -> execution seconds of every node dbt ran."""
    return {r["unique_id"]: float(r["execution_time"]) for r in run_results["results"]}


def build_summary(run_results: Mapping[str, Any], wall_seconds: float) -> dict[str, Any]:
    """Seconds per model, totals per node type (model, test, unit_test, seed, operation), the
    seconds of dbt's run (`elapsed_time`: Spark start and the nodes, as many at a time as the
    target has threads) and what is left of the wall time (Python and dbt start, parsing)."""
    seconds = node_seconds(run_results)
    run_seconds = float(run_results["elapsed_time"])
    by_type: dict[str, float] = {}
    models = {}
    for unique_id, value in seconds.items():
        node_type = unique_id.split(".", 1)[0]
        by_type[node_type] = by_type.get(node_type, 0.0) + value
        if node_type == "model":
            models[unique_id.rsplit(".", 1)[1]] = round(value, 3)
    statuses = sorted({r["status"] for r in run_results["results"]})
    return {
        "seconds_by_node_type": {k: round(v, 3) for k, v in sorted(by_type.items())},
        "nodes": len(seconds),
        "statuses": statuses,
        "run_seconds": round(run_seconds, 3),
        "outside_run_seconds": round(wall_seconds - run_seconds, 3),
        "models": dict(sorted(models.items(), key=lambda item: -item[1])),
    }


def per_second(count: float, seconds: float) -> float | None:
    return round(count / seconds, 1) if seconds > 0 else None


def format_model_seconds(models: Mapping[str, float], format_name: str) -> float:
    """Seconds of the format's staging models (`base_<format>__*`, `stg_<format>__*`)."""
    pattern = re.compile(rf"^(base|stg)_{re.escape(format_name)}__")
    return sum(value for name, value in models.items() if pattern.match(name))


def staging_rows_per_s(models: Mapping[str, float], row_changes: Mapping[str, int]) -> dict[str, float | None]:
    """Row changes per second of each format's staging models. Views cost ~nothing here: their
    work runs in the models that read them, so this is mostly the base model's parse."""
    return {name: per_second(rows, format_model_seconds(models, name)) for name, rows in row_changes.items()}


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 3)


def ratios(steps: Mapping[str, Mapping[str, Any]], key: str = "seconds") -> dict[str, float | None]:
    """The issue's ratios of the steps' `key` (wall or CPU seconds); "per message" divides
    by the messages the step read."""

    def per_message(step: str) -> float:
        return steps[step][key] / steps[step]["messages"]

    return {
        "ratio_full_build_to_handwritten": ratio(per_message("full_build"), per_message("handwritten")),
        "ratio_full_build_to_floor": ratio(per_message("full_build"), per_message("floor")),
        "ratio_full_build_to_equivalent": ratio(per_message("full_build"), per_message("equivalent")),
        "ratio_incremental_to_full": ratio(steps["incremental_build"][key], steps["full_build"][key]),
        "ratio_incremental_history_growth": ratio(
            steps["incremental_build"][key], steps["small_history_incremental_build"][key]
        ),
        # Both read the same containers: the ratio per record. None when no Avro format landed.
        "ratio_spark_avro_to_fastavro": ratio(
            steps.get("avro_spark_avro", {}).get(key), steps.get("avro_fastavro", {}).get(key)
        ),
    }


def goals(
    wall: Mapping[str, float | None],
    cpu: Mapping[str, float | None],
    rows_per_s: Mapping[str, float | None],
    full_build_peak_mib: float | None,
    full_build_nodes: int | None,
) -> list[dict[str, Any]]:
    """The issues' goals, each with its measured value; `met` is None when not measurable
    (e.g. no Avro format landed). History growth and the equivalent job are judged on CPU
    seconds, as the issues ask."""

    def goal(name: str, value: float | None, limit: float, at_most: bool) -> dict[str, Any]:
        met = None if value is None else (value <= limit if at_most else value >= limit)
        return {"goal": name, "value": value, "limit": limit, "met": met}

    canal = rows_per_s.get(CANAL)
    avro = [value for name, value in rows_per_s.items() if name.endswith(AVRO_SUFFIX)]
    slowest_avro = None if not avro or None in avro else min(v for v in avro if v is not None)
    peak_gib = None if full_build_peak_mib is None else round(full_build_peak_mib / 1024, 2)
    return [
        goal("ratio_full_build_to_handwritten <= 5", wall["ratio_full_build_to_handwritten"], 5.0, at_most=True),
        goal("ratio_full_build_to_floor <= 8", wall["ratio_full_build_to_floor"], 8.0, at_most=True),
        goal("ratio_incremental_to_full <= 0.12", wall["ratio_incremental_to_full"], 0.12, at_most=True),
        goal(
            "ratio_incremental_history_growth (CPU) <= 1.1", cpu["ratio_incremental_history_growth"], 1.1, at_most=True
        ),
        goal(
            "slowest Avro staging rows/s / canal staging rows/s >= 0.7", ratio(slowest_avro, canal), 0.7, at_most=False
        ),
        goal("full build peak GiB <= 4", peak_gib, 4.0, at_most=True),
        goal("ratio_full_build_to_equivalent (CPU) <= 2", cpu["ratio_full_build_to_equivalent"], 2.0, at_most=True),
        goal("full build nodes <= 45", full_build_nodes, 45, at_most=True),
    ]


def assemble(segments: Mapping[str, Segment], steps: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The report from the landing's segments and the steps' measures. The ratios are of wall
    seconds; `cpu_ratios` are the same ratios of CPU seconds (steadier on a shared machine)."""
    history = [segments["small"], segments["rest"]]
    formats = {
        name: {
            "messages": sum(s.formats[name].messages for s in history),
            "row_changes": sum(s.formats[name].row_changes for s in history),
        }
        for name in segments["small"].formats
    }
    rates = staging_rows_per_s(steps["full_build"]["models"], {k: v["row_changes"] for k, v in formats.items()})
    wall = ratios(steps)
    cpu = ratios(steps, "cpu_seconds")
    return {
        "messages": sum(f["messages"] for f in formats.values()),
        "row_changes": sum(f["row_changes"] for f in formats.values()),
        "formats": formats,
        "increment_messages": segments["increment"].messages,
        "small_history_messages": segments["small"].messages,
        **wall,
        "cpu_ratios": cpu,
        "goals": goals(wall, cpu, rates, steps["full_build"].get("peak_rss_mib"), steps["full_build"].get("nodes")),
        "staging_rows_per_s": rates,
        "peak_rss_mib": max(step.get("peak_rss_mib", 0) for step in steps.values()),
        "steps": steps,
    }
