{#- The record's one row: column name -> text for the present values of each image, NULL unless
    the field names are distinct and named and the image holds a value for each. An insert's
    before image and a delete's after image are not read even where sent. -#}
{% macro dts_avro_row_images(message, names, before_values, after_values) -%}
    array(named_struct(
        'before_image', if(
            {{ message }}.operation != 'INSERT',
            {{ dts_avro_image(names, message ~ '.beforeImages.array', before_values) }},
            null
        ),
        'after_image', if(
            {{ message }}.operation != 'DELETE',
            {{ dts_avro_image(names, message ~ '.afterImages.array', after_values) }},
            null
        )
    ))
{%- endmacro %}


{% macro dts_avro_image(names, items, values) -%}
    if(
        {{ array_size(items) }} = {{ array_size(names) }}
        and size(array_distinct(array_compact({{ names }}))) = {{ array_size(names) }},
        map_from_entries(transform(
            filter(
                zip_with({{ names }}, {{ values }}, (column_name, column_value) -> named_struct('key', column_name, 'value', column_value)),
                entry -> entry.value.present
            ),
            entry -> named_struct('key', entry.key, 'value', entry.value.text)
        )),
        null
    )
{%- endmacro %}


{#- Why the record's images cannot be read: fields unnamed or named twice, an image without one
    value per field, else the first value's reason. An absent or empty image, or an empty name,
    is the shared ladder's to judge (missing_row_image, empty_column_name). -#}
{% macro dts_avro_image_rejection_reason(message, names, before_values, after_values) -%}
    case
        when {{ array_size(names) }} = 0 or exists({{ names }}, field_name -> field_name is null)
            then 'missing_columns'
        when size(array_distinct({{ names }})) != size({{ names }}) then 'duplicate_column'
        else coalesce(
            if(
                {{ message }}.operation != 'INSERT',
                {{ dts_avro_image_reason(names, message ~ '.beforeImages.array', before_values) }},
                null
            ),
            if(
                {{ message }}.operation != 'DELETE',
                {{ dts_avro_image_reason(names, message ~ '.afterImages.array', after_values) }},
                null
            )
        )
    end
{%- endmacro %}


{% macro dts_avro_image_reason(names, items, values) -%}
    case
        when {{ array_size(items) }} = 0 then null
        when {{ array_size(items) }} != {{ array_size(names) }} then 'invalid_row_image'
        else try_element_at(filter(transform({{ values }}, column_value -> column_value.reason), reason -> reason is not null), 1)
    end
{%- endmacro %}
