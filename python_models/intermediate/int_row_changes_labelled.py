from cdc_lakehouse.lookups import label_row_changes, with_mysql_types


def model(dbt, session):
    dbt.config(materialized="table")
    row_changes = with_mysql_types(
        dbt.ref("int_row_changes_unioned"), "oms_avro", dbt.ref("oms_data_types")
    )
    return label_row_changes(row_changes, dbt.ref("jdbc_types"), dbt.ref("canal_event_types"))
