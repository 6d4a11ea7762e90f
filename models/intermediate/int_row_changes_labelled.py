from cdc_lakehouse.geometry import with_geometry_texts
from cdc_lakehouse.incremental import loaded_after
from cdc_lakehouse.lookups import label_row_changes


def model(dbt, session):
    dbt.config(
        materialized="incremental",
        unique_key=["source_format", "file_path", "line_number", "message_index", "row_index"],
    )
    labelled = session.table(str(dbt.this)) if dbt.is_incremental else None
    row_changes = with_geometry_texts(loaded_after(dbt.ref("int_row_changes"), labelled))
    return label_row_changes(row_changes, dbt.ref("jdbc_types"), dbt.ref("canal_event_types"))
