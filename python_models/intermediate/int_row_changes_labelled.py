from cdc_lakehouse.lookups import label_row_changes, name_dts_column_types


def model(dbt, session):
    dbt.config(materialized="table")
    return label_row_changes(
        name_dts_column_types(dbt.ref("int_row_changes_unioned"), dbt.ref("dts_mysql_data_types")),
        dbt.ref("jdbc_types"),
        dbt.ref("canal_event_types"),
    )
