from cdc_lakehouse.lookups import label_row_changes


def model(dbt, session):
    dbt.config(materialized="table")
    return label_row_changes(
        dbt.ref("int_row_changes_unioned"),
        dbt.ref("jdbc_types"),
        dbt.ref("canal_event_types"),
    )
