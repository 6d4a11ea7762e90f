{#- Whether Delta changes a replica column from `old_type` to `new_type` in place (type
    widening, `ALTER COLUMN ... TYPE`) rather than the replica being made anew. Delta 4 (Spark 4)
    and Databricks Runtime 15.4 LTS and later widen integers, float to double, and decimals whose
    precision grows by at least their scale; Delta 3.3 (Spark 3.5) only byte and short, which
    replica columns never are. Types as Spark spells them (`decimal(12,2)`). -#}
{% macro widens_in_place(old_type, new_type) -%}
    {%- if target.type != 'databricks' and query_rows_once('select version()')[0][0].split('.')[0] | int < 4 -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set integers = ['tinyint', 'smallint', 'int', 'bigint'] -%}
    {%- set decimal = '^decimal\\((\\d+),(\\d+)\\)$' -%}
    {%- set old, new = modules.re.match(decimal, old_type), modules.re.match(decimal, new_type) -%}
    {%- if old_type in integers and new_type in integers -%}
        {{ return(integers.index(old_type) < integers.index(new_type)) }}
    {%- elif old and new -%}
        {%- set more_digits = new.group(1) | int - old.group(1) | int -%}
        {%- set more_scale = new.group(2) | int - old.group(2) | int -%}
        {{ return(more_digits > 0 and more_digits >= more_scale and more_scale >= 0) }}
    {%- endif -%}
    {{ return(old_type == 'float' and new_type == 'double') }}
{%- endmacro %}
