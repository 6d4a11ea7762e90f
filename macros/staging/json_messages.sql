{#- Every format's first step: the lines of its landing not loaded yet (and the records of its
    binary container files: Avro records in their JSON encoding) as one row per message, parsed
    with the format's explicit schema, with the reason a message is not a usable JSON object
    (NULL when it is). A batch line (a JSON array) gives a row per element; a line that gives no
    message keeps one row with a NULL message_index. Where a format reads Kafka tombstones (an
    empty value or JSON null), those pass unchecked and are flagged; where it reads record keys
    (not in a batch), each message has its line's `record_key`. -#}
{% macro json_messages(landing, message_schema, text_fields, batches=false, tombstones=false, container_records=none, record_keys=false) -%}
{%- set lines = '(' ~ landed_lines_not_loaded(landing, container_records, record_keys) ~ ')' -%}
select
    *,
    case
        when is_tombstone then null
        else coalesce(
            line_rejection_reason,
            {{ json_object_rejection_reason('message_json', 'message', text_fields, 'message_json_as_sent', 'message_variant') }}
        )
    end as parse_rejection_reason
from (
    select
        *,
        from_json({{ json_exact_numbers('message_json') }}, '{{ message_schema }}') as message
        {%- if spark_supports_variant() %},
        -- Parsed once for every check that asks a JSON type: its keys, its text fields. The text
        -- as sent, whose numbers are not quoted (a quoted number would pass for a string).
        try_parse_json(message_json_as_sent) as message_variant
        {%- endif %}
    from (
        {%- if batches %}
        select
            *,
            batch_rejection_reason as line_rejection_reason,
            false as is_tombstone
        from ({{ split_json_batches(lines ~ ' as landed_lines') }})
        {%- else %}
        select
            file_path,
            line_number,
            landed_at,
            payload,
            {%- if record_keys %}
            record_key,
            {%- endif %}
            payload as message_json,
            payload as message_json_as_sent,
            {{ line_tombstone(tombstones) }} as is_tombstone,
            -- A blank line gives no message, unless it is a tombstone.
            if({{ is_blank('payload') }} and not {{ line_tombstone(tombstones) }}, null, 0) as message_index,
            case
                -- Only a binary Avro container record that could not be read has no payload.
                when payload is null then 'invalid_avro_container'
                when {{ is_blank('payload') }} then 'empty_line'
            end as line_rejection_reason
        from {{ lines }} as landed_lines
        {%- endif %}
    )
)
{%- endmacro %}


{#- A Kafka tombstone, for formats that read them: an empty value or JSON `null`. -#}
{% macro line_tombstone(tombstones) -%}
    {%- if tombstones -%}
        coalesce({{ is_blank('payload') }} or trim(payload) = 'null', false)
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}
