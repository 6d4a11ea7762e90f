-- Every message classified as a row change gives at least one row change, and every row change
-- (redeliveries included) is in the fact under its change_id. The row changes are read as
-- int_row_changes_labelled holds them, the table the fact is loaded from: the check spans both
-- steps, and does not compute the int_row_changes view again.
with

outcomes as (

    select *
    from {{ ref('int_messages') }}
    where disposition = 'row_change' and {{ loaded_since_data_tests_passed() }}

),

row_changes as (

    select *
    from {{ ref('int_row_changes_labelled') }}
    where {{ loaded_since_data_tests_passed() }}

)

select
    outcomes.file_path,
    outcomes.line_number,
    outcomes.message_index,
    'message gave no row change' as problem
from outcomes
left anti join row_changes
    on
        outcomes.file_path = row_changes.file_path
        and outcomes.line_number = row_changes.line_number
        and outcomes.message_index = row_changes.message_index

union all

select
    row_changes.file_path,
    row_changes.line_number,
    row_changes.message_index,
    'row change missing from fct_row_changes' as problem
from row_changes
left anti join {{ ref('fct_row_changes') }} as facts
    on row_changes.change_id = facts.change_id
