{#- How a replica table is written: made anew (`replica_create_statements`), its columns
    changed in place (`replica_schema_changes`), and its rows kept by MERGE (`replica_merge_sql`).
    `replica` is one of the `replicas` materialization (`replica_definition`). -#}


{#- The statements that make `replica` anew: an empty Delta table with its columns described and
    its options noted, then its rows. Column mapping lets later DDL rename and drop columns, and
    lets names hold any character; the change data feed gives what each run changed. An empty
    table left by a run stopped between the two is filled by the next (`replica_merge_sql`). -#}
{% macro replica_create_statements(replica) -%}
    {%- set options = replica.options -%}
    {%- set create -%}
        create table {{ replica.relation }} (
            {%- for name, expression, spark_type, description in replica.outputs %}
            {{ quoted_identifier(name) }} {{ spark_type }} comment {{ string_literal(description) }}{{ ',' if not loop.last }}
            {%- endfor %}
        )
        using delta
        tblproperties (
            'delta.columnMapping.mode' = 'name',
            'delta.enableChangeDataFeed' = 'true',
            'cdc.replica_options' = {{ string_literal(tojson(options)) }}
        )
        comment {{ string_literal('The ' ~ ('history (SCD type 2)' if options.get('scd_type') == 2 else 'current rows') ~ ' of the source table ' ~ replica.database_name ~ '.' ~ replica.table_name ~ ', typed.') }}
    {%- endset -%}
    {%- set insert = 'insert into ' ~ replica.relation ~ ' ' ~ replica_select(replica.outputs, replica.database_name, replica.table_name, options) -%}
    {{ return([create, insert]) }}
{%- endmacro %}


{#- The ALTER TABLE statements that give `existing` (the replica table as it is) the columns of
    `replica`, or none when it must be made anew: its options changed, or a column's type did
    in a way Delta cannot widen in place (`widens_in_place`), or a column has older names none of
    which it can be renamed from (rows not written this run hold its values under those). A
    column first seen is added (rows not written this run never had it), a renamed one renamed,
    a widened one widened, one no longer kept dropped. -#}
{% macro replica_schema_changes(existing, replica) -%}
    {%- if table_property(existing, 'cdc.replica_options') != tojson(replica.options) -%}{{ return(none) }}{%- endif -%}
    {%- set types = {} -%}
    {%- for column in adapter.get_columns_in_relation(existing) -%}
        {%- do types.update({column.name: column.dtype | replace(' ', '') | lower}) -%}
    {%- endfor -%}
    {%- set names = replica.outputs | map(attribute=0) | list -%}
    {%- set statements = [] -%}
    {%- set renamed = [] -%}
    {%- for name, expression, spark_type, description in replica.outputs -%}
        {%- set previous = replica.previous_names.get(name, []) | select('in', types) | reject('in', names) | list -%}
        {%- set wanted = spark_type | replace(' ', '') | lower -%}
        {%- if name in types and types[name] != wanted and not widens_in_place(types[name], wanted) -%}
            {{ return(none) }}
        {%- elif name in types and types[name] != wanted -%}
            {%- set widening = "alter table " ~ existing ~ " set tblproperties ('delta.enableTypeWidening' = 'true')" -%}
            {%- if widening not in statements %}{% do statements.insert(0, widening) %}{% endif -%}
            {%- do statements.append('alter table ' ~ existing ~ ' alter column ' ~ quoted_identifier(name) ~ ' type ' ~ spark_type) -%}
        {%- elif name not in types and previous and types[previous[-1]] == wanted -%}
            {%- do renamed.append(previous[-1]) -%}
            {%- do statements.append('alter table ' ~ existing ~ ' rename column ' ~ quoted_identifier(previous[-1]) ~ ' to ' ~ quoted_identifier(name)) -%}
        {%- elif name not in types and replica.previous_names.get(name) -%}
            {{ return(none) }}
        {%- elif name not in types -%}
            {%- do statements.append('alter table ' ~ existing ~ ' add columns (' ~ quoted_identifier(name) ~ ' ' ~ spark_type
                ~ ' comment ' ~ string_literal(description) ~ (' after ' ~ quoted_identifier(names[loop.index0 - 1]) if not loop.first else ' first') ~ ')') -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for name in types if name not in names and name not in renamed -%}
        {%- do statements.append('alter table ' ~ existing ~ ' drop column ' ~ quoted_identifier(name)) -%}
    {%- endfor -%}
    {{ return(statements) }}
{%- endmacro %}


{#- MERGE of the rows of `replica` whose keys have versions loaded after `loaded_after` (unix
    microseconds; all keys when none), under its table's name or an earlier one (a late change
    there can end a row a rename carried here: delete_uncarried_versions): each such key's rows
    are computed again from all its versions, so a late or out-of-order change gives the rows a
    full rebuild gives (as AUTO CDC's `sequence_by`). A row is one per key, or per key and
    opening change (SCD type 2); the table's rows of those keys that are no longer among them
    are deleted. -#}
{% macro replica_merge_sql(replica, loaded_after) -%}
    {%- set options = replica.options -%}
    {%- set version = none if options.get('scd_type') != 2
        else ('dbt_scd_id' if options.get('column_names') == 'dbt_snapshot' else '_opened_by_change_id') -%}
    {%- set keys -%}
        select primary_key from {{ ref('dim_row_versions') }}
        where
            ({%- for table_name in [replica.table_name] + replica.renamed_from %}
            {{ 'or ' if not loop.first }}{{ replica_table_filter(replica.database_name, table_name) }}
            {%- endfor %})
            and {{ later_than_micros('loaded_at', loaded_after) }}
    {%- endset -%}
    merge into {{ replica.relation }} as replica
    using (
        select
            coalesce(rebuilt._primary_key, held._primary_key) as primary_key,
            {%- if version %}
            coalesce(rebuilt.{{ quoted_identifier(version) }}, held.{{ quoted_identifier(version) }}) as version,
            {%- endif %}
            rebuilt._primary_key is null as is_gone,
            struct(rebuilt.*) as row
        from ({{ replica_select(replica.outputs, replica.database_name, replica.table_name, options, keys) }}) as rebuilt
        full outer join (
            select _primary_key{{ ', ' ~ quoted_identifier(version) if version }}
            from {{ replica.relation }}
            where _primary_key in ({{ keys }})
        ) as held
            on rebuilt._primary_key = held._primary_key{{ (' and rebuilt.' ~ quoted_identifier(version) ~ ' = held.' ~ quoted_identifier(version)) if version }}
    ) as changes
    on replica._primary_key = changes.primary_key{{ (' and replica.' ~ quoted_identifier(version) ~ ' = changes.version') if version }}
    when matched and changes.is_gone then delete
    when matched then update set
        {%- for name in replica.outputs | map(attribute=0) %}
        replica.{{ quoted_identifier(name) }} = changes.row.{{ quoted_identifier(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    when not matched and not changes.is_gone then insert (
        {%- for name in replica.outputs | map(attribute=0) %}
        {{ quoted_identifier(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    ) values (
        {%- for name in replica.outputs | map(attribute=0) %}
        changes.row.{{ quoted_identifier(name) }}{{ ',' if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}
