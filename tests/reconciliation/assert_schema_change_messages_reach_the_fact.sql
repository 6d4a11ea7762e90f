-- Every message classified as a schema change is in the fact under its change_id
-- (a redelivery under its first landed copy's).
select
    schema_changes.file_path,
    schema_changes.line_number,
    schema_changes.message_index
from {{ ref('int_schema_changes_unioned') }} as schema_changes
left anti join {{ ref('fct_schema_changes') }} as facts
    on schema_changes.change_id = facts.change_id

union all

select
    outcomes.file_path,
    outcomes.line_number,
    outcomes.message_index
from {{ ref('int_message_outcomes_unioned') }} as outcomes
left anti join {{ ref('int_schema_changes_unioned') }} as schema_changes
    on
        outcomes.file_path = schema_changes.file_path
        and outcomes.line_number = schema_changes.line_number
        and outcomes.message_index = schema_changes.message_index
where outcomes.disposition = 'schema_change'
