# Sourced by thrift_server.sh and spark_sql.sh: what both pass to a local Spark application over
# a state dir (warehouse + Derby metastore), the local dbt profile's settings that decide what a
# query sees. `local_spark_home`: the pyspark install in .venv. `local_spark_args <state dir>`:
# fills the array LOCAL_SPARK_ARGS.

local_spark_home() {
    .venv/bin/python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'
}

local_spark_args() {
    local state="$1"
    LOCAL_SPARK_ARGS=(
        --master 'local[2]'
        --conf spark.ui.enabled=false
        --conf spark.sql.session.timeZone=UTC
        # Delta Lake from the jars `make setup` fetched (as the profile does).
        --driver-class-path "${CDC_SPARK_JARS:-jvm/jars/spark-4.0/*}"
        --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension
        --conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog
        --conf spark.databricks.delta.snapshotPartitions=2
        --conf spark.databricks.delta.allFilesInCrc.enabled=false
        # Off as dbt-spark sets it for its sessions, unless CDC_SPARK_ANSI=true.
        --conf "spark.sql.ansi.enabled=${CDC_SPARK_ANSI:-false}"
        --conf "spark.sql.warehouse.dir=$state/warehouse"
        --conf "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=$state/metastore_db;create=true"
        --conf "spark.driver.extraJavaOptions=-Dderby.system.home=$state -Dlog4j2.configurationFile=$PWD/conf/log4j2.properties"
        # Landed files are read as they are, stale `.crc` sidecars or not, and Delta's log is
        # written without them (as the profile does).
        --conf spark.hadoop.fs.file.impl=org.apache.hadoop.fs.RawLocalFileSystem
        --conf spark.hadoop.fs.AbstractFileSystem.file.impl=org.apache.hadoop.fs.local.RawLocalFs
        # Spark 3.5's analyzer needs about 120 passes over the Debezium staging.
        --conf spark.sql.analyzer.maxIterations=200
        # Expressions interpreted where CDC_SPARK_CODEGEN=false, as the profile runs them for tests.
        --conf "spark.sql.codegen.wholeStage=${CDC_SPARK_CODEGEN:-true}"
        --conf "spark.sql.codegen.factoryMode=$([[ "${CDC_SPARK_CODEGEN:-true}" == false ]] && echo NO_CODEGEN || echo FALLBACK)"
        # Parquet timestamps with statistics, which `loaded_at` filters skip row groups on.
        --conf spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS
        # Room for every class of generated code a build compiles (as the profile does).
        --conf spark.sql.codegen.cache.maxEntries=5000
    )
}
