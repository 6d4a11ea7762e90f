{#- Debezium temporal values as the canonical text, computed with integer arithmetic so that
    neither the session time zone nor a timestamp's microsecond limit plays a part. -#}

{#- io.debezium.time.Date: days since 1970-01-01, as YYYY-MM-DD. -#}
{% macro connect_date_text(days) -%}
    cast(date_add(date'1970-01-01', {{ days }}) as string)
{%- endmacro %}


{#- io.debezium.time.Time / MicroTime / NanoTime: a duration in ms, µs or ns (MySQL TIME may be
    negative or above 24 hours), as [-]HH:MM:SS[.fraction], trailing zeros of the fraction dropped. -#}
{% macro connect_time_text(duration, units_per_second) -%}
    {%- set magnitude = 'abs(' ~ duration ~ ')' -%}
    concat(
        if({{ duration }} < 0, '-', ''),
        format_string(
            '%02d:%02d:%02d',
            {{ magnitude }} div {{ units_per_second * 3600 }},
            ({{ magnitude }} div {{ units_per_second * 60 }}) % 60,
            ({{ magnitude }} div {{ units_per_second }}) % 60
        ),
        regexp_replace(
            concat('.', lpad(cast({{ magnitude }} % {{ units_per_second }} as string), {{ (units_per_second | string | length) - 1 }}, '0')),
            '\\.?0+$',
            ''
        )
    )
{%- endmacro %}


{#- io.debezium.time.Timestamp / MicroTimestamp / NanoTimestamp: ms, µs or ns since the epoch
    (a local date-time read as UTC), as YYYY-MM-DD HH:MM:SS[.fraction]. -#}
{% macro connect_timestamp_text(since_epoch, units_per_second) -%}
    {%- set units_per_day = units_per_second * 86400 -%}
    concat(
        {{ connect_date_text(
            'cast((' ~ since_epoch ~ ' - pmod(' ~ since_epoch ~ ', ' ~ units_per_day ~ ')) div ' ~ units_per_day ~ ' as int)'
        ) }},
        ' ',
        {{ connect_time_text('pmod(' ~ since_epoch ~ ', ' ~ units_per_day ~ ')', units_per_second) }}
    )
{%- endmacro %}


{#- io.debezium.time.ZonedTimestamp: ISO-8601 text with a zone offset (MySQL TIMESTAMP arrives
    in UTC, e.g. 2018-06-20T13:37:03Z). Normalised to the canonical text of the UTC instant,
    to microseconds. -#}
{% macro connect_zoned_timestamp_text(value_text) -%}
    if(
        {{ value_text }} rlike '(Z|[+-][0-9]{2}:?[0-9]{2})$',
        {{ connect_timestamp_text('unix_micros(to_timestamp(' ~ value_text ~ '))', 1000000) }},
        null
    )
{%- endmacro %}
