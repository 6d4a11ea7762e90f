{#- The formats with a staging folder and the entities each stages. A new format adds itself
    here; a format without DDL has no schema_changes. -#}
{% macro cdc_formats() -%}
    {{ return({
        'canal_json': ['row_changes', 'schema_changes', 'message_outcomes'],
        'cloudcanal_json': ['row_changes', 'schema_changes', 'message_outcomes'],
        'debezium_json': ['row_changes', 'schema_changes', 'message_outcomes'],
        'kafka_river_json': ['row_changes', 'message_outcomes'],
        'dts_avro': ['row_changes', 'schema_changes', 'message_outcomes'],
        'oms_avro': ['row_changes', 'schema_changes', 'message_outcomes'],
    }) }}
{%- endmacro %}


{#- Every format's `stg_<format>__<entity>` model, stacked by column name. -#}
{% macro union_formats(entity, columns) -%}
    {%- for format, entities in cdc_formats().items() if entity in entities %}
    select {{ columns | join(', ') }} from {{ ref('stg_' ~ format ~ '__' ~ entity) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
