"""The `tableChanges` table description (002) shared by CloudCanal and Debezium DDL."""

from __future__ import annotations

from typing import Any

from cdc_tools.generator.model import SchemaChange

# tableChanges' `type` for each DDL kind; QUERY and TRUNCATE carry no table change.
CHANGE_TYPES = {
    "CREATE": "CREATE",
    "ALTER": "ALTER",
    "DROP": "DROP",
    "RENAME": "ALTER",
    "CREATE_INDEX": "ALTER",
    "DROP_INDEX": "ALTER",
}


def table_description(change: SchemaChange, first_position: int) -> dict[str, Any]:
    """002's `table`: columns (jdbcType, name, position, typeExpression, typeName) and key."""
    table = change.table
    assert table is not None
    return {
        "columns": [
            {
                "jdbcType": column.type.jdbc_type,
                "name": column.name,
                "position": first_position + position,
                "typeExpression": column.type.mysql_type,
                "typeName": column.type.type_name,
            }
            for position, column in enumerate(table.columns)
        ],
        "primaryKeyColumnNames": list(table.key),
    }
