from cdc_lakehouse.avro.dts import decode_messages


def model(dbt, session):
    dbt.config(materialized="table")
    landed = dbt.source("dts_avro", "landed_lines").select("file_path", "line_number", "payload", "landed_at")
    records = dbt.ref("base_dts_avro__container_records")
    return decode_messages(landed.unionByName(records))
