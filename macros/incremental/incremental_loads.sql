{#- When a row was loaded: every incremental model takes the upstream rows loaded after the
    newest it holds, so a run killed midway is caught up by the next one. A Spark clock time
    (not dbt's run_started_at) so that Python models stamp the same way. -#}
{% macro load_time() -%}
    current_timestamp()
{%- endmacro %}


{#- is_incremental(), and false where dbt may not look at the warehouse (a unit test has no `this`;
    `dbt compile --no-introspect`) and under `dbt show`, which is to preview what the model holds,
    not what a run would add: those compile a model as a full refresh. -#}
{% macro incremental_run() -%}
    {{ return(
        execute and flags.INTROSPECT is not false and flags.WHICH != 'show' and this is not none and is_incremental()
    ) }}
{%- endmacro %}

{#- In an incremental run of this model: `<column> > <newest value this model holds>`, the
    newest value inlined as a literal so that Parquet skips older row groups; otherwise true. -#}
{% macro loaded_after_this(column='loaded_at') -%}
    {%- set newest = none -%}
    {%- if incremental_run() -%}
        {%- set newest = run_query('select unix_micros(max(' ~ column ~ ')) from ' ~ this).columns[0].values()[0] -%}
    {%- endif -%}
    {{- later_than_micros(column, newest) -}}
{%- endmacro %}


{#- `<column> > <unix microseconds as a timestamp literal>`, or `true` when there is no time. -#}
{% macro later_than_micros(column, micros) -%}
    {%- if micros is none -%}
        true
    {%- else -%}
        {{ column }} > timestamp_micros({{ micros | int }})
    {%- endif -%}
{%- endmacro %}


{#- The lines of a landing source whose files this model has not loaded yet (all of them when
    not incremental), and of a binary format the records its container files gave: those
    loaded after this model's newest, of files it has not loaded. Loaded files are excluded by
    path as literals, so Spark does not even read them (it prunes files on `_metadata`
    filters): the cost follows the new files. -#}
{% macro landed_lines_not_loaded(landing, container_records=none) -%}
    {%- set loaded_files = [] -%}
    {%- if incremental_run() -%}
        {%- set loaded_files = run_query('select distinct file_path from ' ~ this).columns[0].values() -%}
    {%- endif -%}
    select file_path, line_number, payload, landed_at from {{ landing }}
    where {{ not_in_literals('file_path', loaded_files) }}
    {%- if container_records %}
    union all
    select file_path, line_number, payload, landed_at from {{ container_records }}
    where {{ loaded_after_this() }} and {{ not_in_literals('file_path', loaded_files) }}
    {%- endif %}
{%- endmacro %}


{#- The changes of `changes` loaded after this fact's newest, one per change_id, that this fact
    does not hold yet, with the columns of `changes`. An exact redelivery repeats a change_id;
    the first landed copy wins, by landing time, so a copy landed after a run is dropped by the
    next incremental run as by a full refresh. -#}
{% macro new_first_landed_changes(changes) -%}
    select landed.first_copy.*
    from (
        select min_by(struct(*), struct(landed_at, file_path, line_number, message_index)) as first_copy
        from {{ changes }}
        where {{ loaded_after_this() }}
        group by change_id
    ) as landed
    {%- if incremental_run() %}
    left anti join {{ this }} as facts on landed.first_copy.change_id = facts.change_id
    {%- endif %}
{%- endmacro %}
