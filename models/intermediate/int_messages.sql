-- Every format's staged messages, stacked: from here on, every format looks the same. A table
-- that takes each run's new rows, not a view: seven queries of a build read it, and over a view
-- each planned and listed every format's staged table (docs/performance.md). A message's text
-- is kept only where a later model reads it (the staged tables hold every one's): a rejected
-- message's, for fct_rejected_messages, and the JSON of a format whose changes are told apart
-- by their text (`text_identity_formats`).
{{ config(materialized='incremental', unique_key=['source_format', 'file_path', 'line_number', 'message_index']) }}
{%- set kept = {
    'payload': "disposition = 'rejected'",
    'message_json': "disposition = 'rejected' or " ~ is_in('source_format', text_identity_formats()),
} %}
{%- set columns = [] %}
{%- for column in staged_message_columns() %}
    {%- do columns.append(
        'if(' ~ kept[column] ~ ', ' ~ column ~ ', null) as ' ~ column if column in kept else column
    ) %}
{%- endfor %}
{{ union_formats('messages', columns, loaded_after_this()) }}
