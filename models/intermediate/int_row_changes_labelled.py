from cdc_lakehouse.geometry import types_geometries, with_geometry_texts
from cdc_lakehouse.incremental import loaded_after, newest_load
from cdc_lakehouse.lookups import label_row_changes


def model(dbt, session):
    dbt.config(
        materialized="incremental",
        unique_key=["source_format", "file_path", "line_number", "message_index", "row_index"],
    )
    newest = newest_load(session.table(str(dbt.this)) if dbt.is_incremental else None)
    row_changes = loaded_after(dbt.ref("int_row_changes"), newest)
    # Asked of the messages, whose column types the row changes carry: the view's windows need not run.
    if types_geometries(loaded_after(dbt.ref("int_messages"), newest)):
        row_changes = with_geometry_texts(row_changes)
    return label_row_changes(row_changes, dbt.ref("jdbc_types"), dbt.ref("canal_event_types"))
