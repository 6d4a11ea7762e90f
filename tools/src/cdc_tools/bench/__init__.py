"""The benchmark of issue 7 (`make bench N=<messages>`): the project's full and incremental
`dbt build` against a parse-only floor and a hand-written canal job. `run.py` runs the steps;
`landing.py` lands the data; `floor.py` and `handwritten.py` are the two plain Spark jobs;
`report.py` holds the report's arithmetic; `proctree.py` samples the process tree's memory."""
