-- From Kafka, every record a run read of a topic partition (base_kafka__reads) is a line of the
-- landed file that read is, in the reconciliation: the offsets read against the messages
-- accounted for. Fails with the reads whose counts differ.
select
    reads.source_format,
    reads.topic,
    reads.`partition`,
    reads.first_offset,
    reads.records,
    reconciled.landed_lines
from {{ ref('base_kafka__reads') }} as reads
left join {{ ref('fct_message_reconciliation') }} as reconciled
    on
        reads.source_format = reconciled.source_format
        and reconciled.file_path = {{ kafka_read_file_path('reads.topic', 'reads.`partition`', 'reads.first_offset') }}
where not (reads.records <=> reconciled.landed_lines)
