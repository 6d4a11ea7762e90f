-- Every message classified as a schema change is in the fact under its change_id
-- (a redelivery under its first landed copy's).
with

outcomes as (

    select *
    from {{ ref('int_messages') }}
    where disposition = 'schema_change' and {{ loaded_since_data_tests_passed() }}

),

schema_changes as (

    select *
    from {{ ref('int_schema_changes') }}
    where {{ loaded_since_data_tests_passed() }}

)

select
    schema_changes.file_path,
    schema_changes.line_number,
    schema_changes.message_index
from schema_changes
left anti join {{ ref('fct_schema_changes') }} as facts
    on schema_changes.change_id = facts.change_id

union all

select
    outcomes.file_path,
    outcomes.line_number,
    outcomes.message_index
from outcomes
left anti join schema_changes
    on
        outcomes.file_path = schema_changes.file_path
        and outcomes.line_number = schema_changes.line_number
        and outcomes.message_index = schema_changes.message_index
