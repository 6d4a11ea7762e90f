{#- Row images of a message that carries its rows in an array and, paired by position, their old
    images in another (canal `data` and `old`, CloudCanal `data` and `before`): an UPDATE's old
    image is NULL, so missing, when the two arrays do not pair; a DELETE's rows are in the first
    array, or in the second when the first is empty (the 001 platform). -#}
{% macro paired_row_images(operation, rows, old_rows) -%}
    transform(
        if({{ operation }} = 'DELETE' and {{ array_size(rows) }} = 0, {{ old_rows }}, {{ rows }}),
        (row_image, row_index) -> named_struct(
            'before_image', case {{ operation }}
                when 'UPDATE' then if(
                    {{ array_size(old_rows) }} = {{ array_size(rows) }}, try_element_at({{ old_rows }}, row_index + 1), null
                )
                when 'DELETE' then row_image
            end,
            'after_image', if({{ operation }} in ('INSERT', 'UPDATE'), row_image, null)
        )
    )
{%- endmacro %}
