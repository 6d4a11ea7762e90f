-- Databricks (dbt-databricks) clusters the facts by table, as readers filter them; others ignore it.
{{ config(materialized='incremental', unique_key='change_id', liquid_clustered_by=['database_name', 'table_name']) }}

-- The first landed copy of every change: an exact redelivery adds nothing.
{{ new_first_landed_changes(ref('int_schema_changes')) }}
