"""Avro CDC formats (OceanBase OMS, Aliyun DTS): their schemas, binary container landing and
decoding into the staging shape the JSON formats give."""
