{#- KafkaRiverCanal's one-letter `event` codes (003) as the operations every format shares; NULL
    for any other code (codes are lower case, as GSON writes the Java char). -#}
{% macro kafka_river_json_operation(event) -%}
    case {{ event }}
        when 'i' then 'INSERT'
        when 'u' then 'UPDATE'
        when 'd' then 'DELETE'
    end
{%- endmacro %}
