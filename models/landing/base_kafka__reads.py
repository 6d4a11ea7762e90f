import json

from cdc_lakehouse.kafka_landing import land, plan


def model(dbt, session):
    dbt.config(materialized="incremental")
    topics = plan(
        dbt.config.get("landing_schema"),
        json.loads(dbt.config.get("formats")),
        json.loads(dbt.config.get("kafka_topics")),
    )
    options = {"kafka.bootstrap.servers": dbt.config.get("kafka_bootstrap_servers")}
    options.update(json.loads(dbt.config.get("kafka_options")))
    return land(
        session,
        topics,
        options,
        dbt.config.get("kafka_checkpoint_root") or None,
        dbt.config.get("kafka_schema_registry_url"),
    )
