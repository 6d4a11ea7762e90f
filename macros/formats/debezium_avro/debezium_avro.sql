{#- Debezium's change events in Avro, as Debezium's AvroConverter writes them with a schema
    registry: each record is read as Kafka Connect's JSON (cdc_lakehouse.avro.connect) and staged
    as Debezium JSON is (debezium_json_staged_messages). Its shape is Debezium JSON's. -#}
{% macro debezium_avro_shape(keys) -%}
    {{ debezium_json_shape(keys) }}
{%- endmacro %}
