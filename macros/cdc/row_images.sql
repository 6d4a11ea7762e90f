{#- The images of one changed row, from the row image a staged message carries (`before_image`
    and `after_image` as the format holds them): an UPDATE's before image may hold only the
    changed columns, laid over its after image then; an INSERT has no before image and a DELETE
    no after image, even where a producer sends one. -#}
{% macro before_image(operation, row_image, before_is_partial) -%}
    case
        when {{ operation }} = 'UPDATE' and {{ before_is_partial }}
            then {{ overlay_image(row_image ~ '.after_image', row_image ~ '.before_image') }}
        when {{ operation }} in ('UPDATE', 'DELETE') then {{ row_image }}.before_image
    end
{%- endmacro %}


{% macro after_image(operation, row_image) -%}
    case when {{ operation }} in ('INSERT', 'UPDATE') then {{ row_image }}.after_image end
{%- endmacro %}


{#- Whether an UPDATE's before image is the one its message holds (`message`), or `unknown`: the
    message holds no old row, or one without some column of the new row and no word that the
    column kept its value (Debezium Postgres under REPLICA IDENTITY DEFAULT sends `before` null or
    the key only; flattened Debezium sends none). Other operations' images are their message's. -#}
{% macro before_image_source(operation, before_image, after_image) -%}
    if(
        {{ operation }} = 'UPDATE'
        and not coalesce(forall(map_keys({{ after_image }}), column_name -> map_contains_key({{ before_image }}, column_name)), false),
        'unknown',
        'message'
    )
{%- endmacro %}


{#- A partial before image (canal `old`: changed columns only, a null value meaning "was NULL")
    laid over the after image gives the full before image, in the after image's column order. -#}
{% macro overlay_image(image, overlay) -%}
    map_concat(
        map_from_entries(transform(
            map_entries({{ image }}),
            entry -> struct(
                entry.key as key,
                if(map_contains_key({{ overlay }}, entry.key), {{ overlay }}[entry.key], entry.value) as value
            )
        )),
        map_filter({{ overlay }}, (column_name, value) -> not map_contains_key({{ image }}, column_name))
    )
{%- endmacro %}


{#- Columns whose value differs between the images, NULL-aware; every column of an inserted
    or deleted row. Only the after image's columns can have changed: a column a partial after
    image leaves out (GoldenGate's compressed update) is unchanged. -#}
{% macro changed_columns(before_image, after_image) -%}
    case
        when {{ before_image }} is null then map_keys({{ after_image }})
        when {{ after_image }} is null then map_keys({{ before_image }})
        else filter(
            map_keys({{ after_image }}),
            column_name -> not (try_element_at({{ before_image }}, column_name) <=> {{ after_image }}[column_name])
        )
    end
{%- endmacro %}


{#- The row's key as canonical JSON, e.g. {"id":"1"}: key columns in key order, values as text,
    taken from the after image (the before image for a delete). NULL when the key is unknown:
    the table has none, or the image lacks a key column's value (NULL or left out), which would
    otherwise make rows that are not one row share a key. -#}
{% macro primary_key_json(key_columns, before_image, after_image) -%}
    case
        when
            size({{ key_columns }}) > 0
            and forall({{ key_columns }}, column_name -> try_element_at(coalesce({{ after_image }}, {{ before_image }}), column_name) is not null)
            then to_json(map_from_arrays(
                {{ key_columns }},
                transform({{ key_columns }}, column_name -> try_element_at(coalesce({{ after_image }}, {{ before_image }}), column_name))
            ))
    end
{%- endmacro %}


{#- A row's key columns: those configured in var('cdc_primary_keys') for "database.table" (the
    override), else those the message names (deduplicated: canal repeats them once per row), else
    those of the table's DDL at the time, else none. -#}
{% macro primary_key_columns(message_key_columns, ddl_key_columns, database_name, table_name) -%}
    {%- set configured = var('cdc_primary_keys') -%}
    coalesce(
        {%- if configured %}
        try_element_at(
            map(
                {%- for table, columns in configured.items() %}
                {{ string_literal(table) }}, array({% for column in columns %}{{ string_literal(column) }}{{ ', ' if not loop.last }}{% endfor %}){{ ',' if not loop.last }}
                {%- endfor %}
            ),
            concat({{ database_name }}, '.', {{ table_name }})
        ),
        {%- endif %}
        nullif(array_distinct(filter({{ message_key_columns }}, column_name -> column_name != '')), array()),
        nullif(array_distinct(filter({{ ddl_key_columns }}, column_name -> column_name != '')), array()),
        cast(array() as array<string>)
    )
{%- endmacro %}
