{#- How a format identifies its changes (docs/identity-and-order.md): `position`, `content` or
    `text`. The format's `identity` in var('cdc_formats'), unless var('cdc_change_identity')
    names another for it. -#}
{% macro change_identity_rule(format) -%}
    {%- set rule = var('cdc_change_identity', {}).get(format) or var('cdc_formats')[format].get('identity', 'text') -%}
    {%- if rule not in ('position', 'content', 'text') -%}
        {{ exceptions.raise_compiler_error('Unknown change identity rule ' ~ rule ~ ' for ' ~ format ~ ': use position, content or text') }}
    {%- endif -%}
    {{ return(rule) }}
{%- endmacro %}


{#- The formats whose changes are told apart by their message's text (`message_json`, which
    `change_identity` reads under the `text` rule). -#}
{% macro text_identity_formats() -%}
    {%- set formats = [] -%}
    {%- for format in var('cdc_formats') if change_identity_rule(format) == 'text' -%}
        {%- do formats.append(format) -%}
    {%- endfor -%}
    {{ return(formats) }}
{%- endmacro %}


{#- Whether a change's identity needs its copy number within its file: under `content`, and under
    `position` where the message carries no coordinates. -#}
{% macro identity_counts_copies() -%}
    case source_format
        {%- for format in var('cdc_formats') %}
        {%- set rule = change_identity_rule(format) %}
        when '{{ format }}' then {{ 'true' if rule == 'content' else 'source_coordinates is null' if rule == 'position' else 'false' }}
        {%- endfor %}
    end
{%- endmacro %}


{#- What identifies a change, by its format's rule, before copies within a file are told apart
    (change_id): `change` lists what the change says (its table, operation and image or
    statement), which a redelivery repeats; the times and ids of the delivery are left out. -#}
{% macro change_identity(change, row_index='0') -%}
    {%- set says = change | join(', ') -%}
    md5(case source_format
        {%- for format in var('cdc_formats') %}
        {%- set rule = change_identity_rule(format) %}
        when '{{ format }}' then concat_ws('|', source_format,
            {%- if rule == 'text' %} message_json, cast({{ row_index }} as string))
            {%- else %}
            {%- if rule == 'position' %} coalesce(source_coordinates, cast(event_at as string)),
            {%- else %} cast(event_at as string),
            {%- endif %}
            cast({{ row_index }} as string), {{ says }})
            {%- endif %}
        {%- endfor %}
    end)
{%- endmacro %}


{#- Whether a change says what the change before it in its history within its file says (same
    `change_identity`), in arrival order: a producer's retry, or a restart's copy landed next to
    its original. The history is its row's (its table and key) for a row change, its table's for
    a schema change; the rows of a table without a key share one history. -#}
{% macro repeats_previous_change(history, arrival_order='line_number, message_index') -%}
    coalesce(change_identity = lag(change_identity) over (
        partition by source_format, file_path, loaded_at, {{ history | join(', ') }} order by {{ arrival_order }}
    ), false)
{%- endmacro %}


{#- A change's id: its identity (column `change_identity`), and where that needs it its copy
    number, which counts the runs of that identity in its history within its file (column
    `repeats_previous_change`): a copy next to its original in that history is the same change,
    while an INSERT, DELETE and INSERT of one row in one second are three. A copy in another file
    has the copy number of its original: a redelivery. A file is loaded whole, in one run:
    partitioning by `loaded_at` too numbers the same copies and lets a filter on `loaded_at` (an
    incremental model's newest rows) reach the staged tables' scans, below the window, rather
    than number all history. -#}
{% macro change_id(history, arrival_order='line_number, message_index') -%}
    if(
        {{ identity_counts_copies() }},
        md5(concat(change_identity, ':', cast(
            count_if(not repeats_previous_change) over (
                partition by source_format, file_path, loaded_at, {{ history | join(', ') }}, change_identity
                order by {{ arrival_order }}
                rows between unbounded preceding and current row
            )
            as string
        ))),
        change_identity
    )
{%- endmacro %}
