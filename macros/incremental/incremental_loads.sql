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

{#- In an incremental run of this model: `loaded_at > <the newest load it has read>`
    (`loaded_through_this`), inlined as a literal so that Parquet skips older row groups;
    otherwise true. -#}
{% macro loaded_after_this() -%}
    {{- later_than_micros('loaded_at', loaded_through_this() if incremental_run() else none) -}}
{%- endmacro %}


{#- Unix microseconds of the newest `loaded_at` of `relation`; none when it has no rows. -#}
{% macro newest_loaded_micros(relation) -%}
    {{ return(run_query('select unix_micros(max(loaded_at)) from ' ~ relation).columns[0].values()[0]) }}
{%- endmacro %}


{#- Unix microseconds of the newest load this model has read: its newest `loaded_at`, or, for a
    model whose meta says `keeps_loaded_through` (a load may give it no row), the later of that
    and the `cdc.loaded_through` its table keeps (`keep_loaded_through`, written after the
    model's write: a run stopped between the two is caught up from its newest row, as others
    are). None when it has neither. -#}
{% macro loaded_through_this() -%}
    {%- set loads = [newest_loaded_micros(this)] -%}
    {%- if config.get('meta', {}).get('keeps_loaded_through') -%}
        {%- do loads.append(table_property(this, 'cdc.loaded_through')) -%}
    {%- endif -%}
    {%- set loads = loads | reject('none') | map('int') | list -%}
    {{ return(loads | max if loads else none) }}
{%- endmacro %}


{#- For a model whose meta says `keeps_loaded_through`, after a write: notes on its table the
    newest load of the models it reads (`cdc.loaded_through`), which it has read. -#}
{% macro keep_loaded_through() -%}
    {%- if config.get('meta', {}).get('keeps_loaded_through') -%}
        {%- set newest = [] -%}
        {%- for relation in loaded_inputs(model.depends_on.nodes) or [] -%}
            {%- do newest.append(newest_loaded_micros(relation)) -%}
        {%- endfor -%}
        {%- set newest = newest | reject('none') | list -%}
        {%- if newest -%}
            {%- do set_table_property(this, 'cdc.loaded_through', newest | max) -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{#- Whether this is an incremental run and none of `relations` holds a row loaded after the
    newest load this model has read (`loaded_through_this`): then a model that rebuilds from
    what was loaded since has nothing to do, and compiles to no rows rather than plan its whole
    query for none. -#}
{% macro nothing_loaded_since_this(relations) -%}
    {%- if not incremental_run() -%}{{ return(false) }}{%- endif -%}
    {%- set newest = loaded_through_this() -%}
    {%- for relation in relations -%}
        {%- set upstream = newest_loaded_micros(relation) -%}
        {%- if upstream is not none and (newest is none or upstream > newest) -%}{{ return(false) }}{%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
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
    loaded after this model's newest, of files it has not loaded. Only files modified since the
    oldest one not loaded are read (a literal time: Spark prunes files on it unread), and of
    those the loaded ones are left out by a join: the cost follows the new files, not the
    loaded ones, as long as files land in modification-time order. With `record_keys`, each
    line's `record_key` too (a Kafka record's key; NULL from files). -#}
{% macro landed_lines_not_loaded(landing, container_records=none, record_keys=false) -%}
    {#- From Kafka, the records land first (base_kafka__reads). -#}
    {%- if kafka_landing() %}{% do ref('base_kafka__reads') %}{% endif -%}
    {%- set incremental = incremental_run() -%}
    {%- if incremental -%}
        {%- set loaded = held_file_paths() -%}
        {%- set since = oldest_landed_file_not_in([landing_format(landing)], loaded) -%}
    {%- endif %}
    select landed.* from (
        select file_path, line_number, payload, landed_at{{ ', record_key' if record_keys }} from {{ landing }}
        {%- if container_records %}
        union all
        select file_path, line_number, payload, landed_at{{ ', cast(null as string) as record_key' if record_keys }}
        from {{ container_records }}
        where {{ loaded_after_this() }}
        {%- endif %}
    ) as landed
    {%- if incremental %}
    left anti join ({{ loaded }} where {{ not_before_micros('landed_at', since) }}) as loaded
        on landed.file_path = loaded.file_path
    where {{ not_before_micros('landed.landed_at', since) }}
    {%- endif %}
{%- endmacro %}


{#- The query of the distinct landed files' paths this model holds: one text wherever it is
    asked (its compile, `nothing_new_for_this`), so that `oldest_landed_file_not_in` answers it
    once. -#}
{% macro held_file_paths() -%}
    {{ return('select distinct file_path from ' ~ this) }}
{%- endmacro %}


{#- Unix microseconds of the oldest file of the formats' landings (read as lines or as
    containers, or as those of `read_as` only) whose path `loaded` (a query giving file_path)
    does not give; none when it gives them all. From the folders' listings: no file is read.
    Asked once per run and question: a model asks it when it compiles and again when it runs
    (`nothing_new_for_this`), before it loads anything. -#}
{% macro oldest_landed_file_not_in(formats, loaded, read_as=['lines', 'containers']) -%}
    {%- set query -%}
        select unix_micros(min(listed.modified_at))
        from (
            {%- for format in formats %}
            {%- set landing = landing_globs(format) %}
            select path as file_path, modificationTime as modified_at
            from {{ landing_listing_table(landing_source(format, 'landed_lines')) }}
            where
                {{ glob_matches('path', landing.lines or '*') if 'lines' in read_as else 'false' }}
                or {{ glob_matches('path', landing.containers) if 'containers' in read_as else 'false' }}
            {{- ' union all' if not loop.last }}
            {%- endfor %}
        ) as listed
        left anti join ({{ loaded }}) as loaded on listed.file_path = loaded.file_path
    {%- endset -%}
    {{ return(query_rows_once(query)[0][0]) }}
{%- endmacro %}


{#- `<column> >= <unix microseconds as a timestamp literal>`, or `false` when there is no time:
    nothing is new. -#}
{% macro not_before_micros(column, micros) -%}
    {%- if micros is none -%}
        false
    {%- else -%}
        {{ column }} >= timestamp_micros({{ micros | int }})
    {%- endif -%}
{%- endmacro %}


{#- The format of var('cdc_formats') whose `landed_lines` source is `landing`. -#}
{% macro landing_format(landing) -%}
    {%- for format in var('cdc_formats') -%}
        {%- set node = landing_source(format, 'landed_lines') -%}
        {%- if node.schema == landing.schema and node.identifier == landing.identifier -%}
            {{ return(format) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('No format of var cdc_formats lands in ' ~ landing) }}
{%- endmacro %}


{#- The changes of `changes` loaded after this fact's newest, one per change_id, that this fact
    does not hold yet, with the columns of `changes`. An exact redelivery repeats a change_id;
    the first landed copy wins, by landing time, so a copy landed after a run is dropped by the
    next incremental run as by a full refresh. A window, not `min_by(struct(*))` grouped by
    change_id: Spark sorts such a struct's groups before and after the shuffle. -#}
{% macro new_first_landed_changes(changes) -%}
    select landed.change.*
    from (
        select
            struct(*) as change,
            row_number() over (
                partition by change_id order by landed_at, file_path, line_number, message_index
            ) as copy_number
        from {{ changes }}
        where {{ loaded_after_this() }}
    ) as landed
    {%- if incremental_run() %}
    left anti join {{ this }} as facts on landed.change.change_id = facts.change_id
    {%- endif %}
    where landed.copy_number = 1
{%- endmacro %}
