{#- on-run-end: a few lines of what this run loaded, read from the marts (rows loaded since the
    run started): files and lines, row and schema changes by format, redelivered changes left
    out, rejections by reason (and those shaped as another format's: macro likely_format), and
    the replicas written where this run built their listing (`results`). After a `dbt build` or
    `dbt run` whose marts exist; one query. The marts are looked up in the graph: a hook's ref()
    must not be in a conditional block. -#}
{% macro report_run(results) %}
    {%- if execute and flags.WHICH in ('build', 'run') -%}
        {%- set marts = {} -%}
        {%- for name in ['fct_message_reconciliation', 'fct_row_changes', 'fct_schema_changes', 'fct_rejected_messages', 'dim_replica_tables'] -%}
            {%- set node = graph.nodes['model.' ~ project_name ~ '.' ~ name] -%}
            {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
            {%- if relation is none -%}
                {{ return('select 1') }}
            {%- endif -%}
            {%- do marts.update({name: relation}) -%}
        {%- endfor -%}
        {%- set this_run = loaded_this_run() -%}
        {%- set counts -%}
            select 'files' as kind, source_format as name, count(*) as n, sum(landed_lines) as lines, sum(redelivered_changes) as redelivered
            from {{ marts.fct_message_reconciliation }} where {{ this_run }} group by source_format
            union all
            select 'row changes', source_format, count(*), null, null from {{ marts.fct_row_changes }} where {{ this_run }} group by source_format
            union all
            select 'schema changes', source_format, count(*), null, null from {{ marts.fct_schema_changes }} where {{ this_run }} group by source_format
            union all
            select 'rejected', reason, count(*), null, null from {{ marts.fct_rejected_messages }} where {{ this_run }} group by reason
            union all
            select 'misplaced', concat(likely_format, ' in ', source_format, '/'), count(*), null, null
            from {{ marts.fct_rejected_messages }} where {{ this_run }} and likely_format is not null group by all
            {%- if 'model.' ~ project_name ~ '.dim_replica_tables' in results | map(attribute='node.unique_id') %}
            union all
            select 'replicas', write_action, count(*), null, null from {{ marts.dim_replica_tables }} where write_action != 'unchanged' group by write_action
            {%- endif %}
            order by kind, n desc, name
        {%- endset -%}
        {%- set rows = run_query(counts).rows -%}
        {%- for line in run_report_lines(rows, marts.fct_rejected_messages) %}{% do log(line, info=true) %}{% endfor -%}
    {%- endif -%}
    select 1
{% endmacro %}


{#- The report's lines from its counts: (kind, name, n, lines, redelivered) rows. -#}
{% macro run_report_lines(rows, rejected_messages) -%}
    {%- set files = rows | selectattr(0, 'equalto', 'files') | list -%}
    {%- if not files -%}
        {{ return(['This run loaded no new file.']) }}
    {%- endif -%}
    {%- set lines = ['This run loaded ' ~ files | sum(attribute=2) ~ ' files (' ~ files | sum(attribute=3) ~ ' lines):'] -%}
    {%- for kind, label in [
        ('row changes', '  row changes: '), ('schema changes', '  schema changes: '), ('rejected', '  rejected: '),
        ('misplaced', "    of them, shaped as another format's (a wrong folder?): "), ('replicas', '  replicas: ')] -%}
        {%- set counted = rows | selectattr(0, 'equalto', kind) | list -%}
        {%- set parts = [] -%}
        {%- for row in counted %}{% do parts.append(row[1] ~ ' ' ~ row[2]) %}{% endfor -%}
        {%- if counted or kind != 'misplaced' -%}
            {%- do lines.append(label ~ (counted | sum(attribute=2) ~ ' (' ~ parts | join(', ') ~ ')' if counted else 'none')) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do lines.append('  redelivered changes left out: ' ~ files | sum(attribute=4)) -%}
    {%- if rows | selectattr(0, 'equalto', 'rejected') | list -%}
        {%- do lines.append('  the rejected messages, with their payloads and reasons: ' ~ rejected_messages) -%}
    {%- endif -%}
    {{ return(lines) }}
{%- endmacro %}


{#- `<column> >= <when this run started>`: the rows this run loaded (load times are Spark's
    clock, `load_time()`, taken after dbt's run_started_at). -#}
{% macro loaded_this_run(column='loaded_at') -%}
    {{- not_before_micros(column, (run_started_at.timestamp() * 1000000) | int) -}}
{%- endmacro %}
