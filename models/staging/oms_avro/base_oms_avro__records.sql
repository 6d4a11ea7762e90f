-- Every landed OMS record parsed and checked, and shard sets reassembled: a record too large for
-- one message comes as `total` records (`index` 0..total-1, one `id`) whose image bytes are
-- consecutive pieces of the Avro binary encoding of its images. The pieces of a complete set are
-- joined on its shard 0 (base_oms_avro__binary_values decodes them); the other shards are merged
-- into it. Shards are numbered by their copy, in arrival order: the n-th copies of a set's shards
-- are one delivery of it, so a whole set sent again (a restarted producer) is reassembled again and
-- counted as a redelivery by its position, a single repeated shard is a duplicate, and every shard
-- of an incomplete first delivery is rejected.
-- Only whole new files are read: a set with pieces in an already loaded file stays incomplete
-- until a full refresh.
with

messages as (

    {{ json_messages(
        source('oms_avro', 'landed_lines'), oms_avro_message_schema(), [],
        container_records=ref('base_oms_avro__container_records'),
    ) }}

),

checked as (

    select
        *,
        {{ oms_avro_unknown_union_branch('message') }} as has_unknown_union_branch,
        -- Routing on text alone keeps the reassembly's shuffle, and the parse, to the few records
        -- that may be shards: a filter that also tested the parsed fields would parse every record.
        coalesce(payload rlike '"total"\\s*:\\s*[1-9]', false) as may_be_shard
    from messages

),

shard_copies as (

    select
        *,
        row_number() over (
            partition by is_shard, message.id, message.index order by landed_at, file_path, line_number
        ) as shard_copy
    from (
        select
            *,
            coalesce(
                parse_rejection_reason is null
                and not has_unknown_union_branch
                and {{ oms_avro_event_kind(oms_avro_union_value('message.operation')) }} is not null
                and message.total >= 1,
                false
            ) as is_shard
        from checked
        where may_be_shard
    )

),

shard_sets as (

    select
        *,
        array_sort(collect_list(
            if(is_shard, named_struct(
                'index', message.index, 'total', message.total,
                'before', message.beforeImageBytes, 'after', message.afterImageBytes
            ), null)
        ) over (partition by is_shard, message.id, shard_copy)) as pieces
    from shard_copies

),

shards as (

    select
        *,
        case
            when not is_shard then null
            when not is_complete and shard_copy > 1 then 'duplicate_shard'
            when not is_complete then 'incomplete_shards'
            when message.index != 0 then 'shard_merged'
        end as shard_reason,
        if(
            is_shard and message.index = 0 and is_complete,
            nullif(array_join(transform(pieces, piece -> piece.before), ''), ''),
            null
        ) as before_image_bytes,
        if(
            is_shard and message.index = 0 and is_complete,
            nullif(array_join(transform(pieces, piece -> piece.after), ''), ''),
            null
        ) as after_image_bytes
    from (
        select
            *,
            -- The size test first: `total` is the sender's word and may be huge.
            if(
                size(pieces) = message.total,
                transform(pieces, piece -> piece.index) = sequence(0, message.total - 1)
                and forall(pieces, piece -> piece.total = message.total),
                false
            ) as is_complete
        from shard_sets
    ) as shard_sets

)

{%- set columns = [
    'file_path', 'line_number', 'message_index', 'landed_at', 'payload', 'message_json', 'message',
    'parse_rejection_reason', 'has_unknown_union_branch',
] %}

select
    {{ columns | join(', ') }},
    cast(null as string) as shard_reason,
    cast(null as string) as before_image_bytes,
    cast(null as string) as after_image_bytes,
    {{ load_time() }} as loaded_at
from checked
where not may_be_shard

union all

select
    {{ columns | join(', ') }},
    shard_reason,
    before_image_bytes,
    after_image_bytes,
    {{ load_time() }} as loaded_at
from shards
