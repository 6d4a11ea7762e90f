{{ config(materialized='incremental', unique_key='change_id') }}

-- The first landed copy of every change: an exact redelivery adds nothing.
{{ new_first_landed_changes(ref('int_row_changes_labelled')) }}
