"""Python side of the cdc_lakehouse dbt project: logic the dbt Python models call."""
