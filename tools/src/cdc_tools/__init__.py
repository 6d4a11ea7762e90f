"""Tools of the cdc_lakehouse project that its dbt Python models do not import: the CDC
test-data generator (`generator`, the `cdc-generate` CLI), the benchmark (`bench`, `make bench`)
and the writer of Avro containers from JSON-encoded records (`avro_json`)."""
