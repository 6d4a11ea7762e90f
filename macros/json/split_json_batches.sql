{#- One row per message of each landed line: a line holds one JSON value, or a JSON array of
    them (canal producers batch messages). Lines that give no message keep one row with a reason:
    blank, or a batch that is not JSON. -#}
{% macro split_json_batches(lines) -%}
    select
        batches.file_path,
        batches.line_number,
        batches.landed_at,
        batches.payload,
        message.pos as message_index,
        message.col as message_json,
        -- The element with its numbers as sent (re-serialised, so not their exact text) for the
        -- checks of JSON types: a quoted number would pass for a string.
        coalesce(try_element_at(batches.sent_messages, message.pos + 1), message.col) as message_json_as_sent,
        case
            when {{ is_blank('batches.payload') }} then 'empty_line'
            when batches.messages is null then {{ json_unparsed_reason('batches.payload') }}
            when size(batches.messages) = 0 then 'empty_batch'
            -- Spark gives a batch's string elements unquoted, so elements are judged here.
            when batches.is_batch and coalesce({{ json_opening_char('message.col') }}, '') != '{'
                then 'not_a_json_object'
        end as batch_rejection_reason
    from (
        select
            *,
            case
                when {{ is_blank('payload') }} then null
                -- A batch that is not one JSON array (e.g. two run together) gives no message.
                when is_batch and not {{ is_one_json_value('payload') }} then null
                when is_batch then from_json({{ json_exact_numbers('payload') }}, 'array<string>')
                else array(payload)
            end as messages,
            if(is_batch and {{ json_has_inexact_numbers('payload') }}, from_json(payload, 'array<string>'), null) as sent_messages
        from (select *, {{ json_opening_char('payload') }} = '[' as is_batch from {{ lines }})
    ) as batches
    lateral view outer posexplode(batches.messages) message as pos, col
{%- endmacro %}


{% macro json_opening_char(json) -%}
    regexp_extract({{ json }}, '^\\s*(.)', 1)
{%- endmacro %}
