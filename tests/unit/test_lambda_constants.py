"""The staging queries compute nothing constant inside a lambda (support/lambda_constants.py):
Debezium's placeholder forms, computed for every image value, were a third of its staging's CPU."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from support.compiled_models import CONTAINER_RECORDS, MODELS, landed_file_lines, relations_read, run_compiled, seed
from support.lambda_constants import constants_in_lambdas

# Those whose inputs are landed lines, container records and seeds only.
STAGED_FROM_LANDINGS = [model for model in MODELS if model != "stg_oms_avro__messages"]


@pytest.mark.parametrize("model", STAGED_FROM_LANDINGS)
def test_no_lambda_computes_a_constant_again_for_each_element(
    spark: SparkSession, compiled: dict[str, str], model: str
) -> None:
    relations = {}
    for relation in relations_read(compiled[model]):
        schema, name = relation.split(".")
        if schema == "cdc_landing":
            relations[relation] = landed_file_lines(spark, [])
        elif name.endswith("__container_records"):
            relations[relation] = spark.createDataFrame([], CONTAINER_RECORDS)
        else:
            relations[relation] = seed(spark, name)
    assert constants_in_lambdas(run_compiled(spark, compiled[model], relations)) == []
