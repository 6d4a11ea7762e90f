select
    source_format,
    file_path,
    line_number,
    message_index,
    disposition,
    disposition_reason,
    payload,
    landed_at,
    loaded_at
from {{ ref('base_dts_avro__messages') }}
