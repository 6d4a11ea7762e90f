{#- A JSON object's keys, with those of its `payload` object (a Kafka Connect envelope's value);
    an empty array for anything else. -#}
{% macro json_top_level_keys(json) -%}
    concat(
        coalesce(json_object_keys({{ json }}), array()),
        coalesce(json_object_keys(get_json_object({{ json }}, '$.payload')), array())
    )
{%- endmacro %}
