"""The ``sparkpy`` adapter: dbt-spark plus an in-process/Spark Connect Python runner."""

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Optional, Tuple, Type

from dbt.adapters.base import BaseRelation, PythonJobHelper, available
from dbt.adapters.contracts.connection import AdapterResponse
from dbt.adapters.spark import SparkAdapter, SparkColumn
from dbt.adapters.spark.connections import SparkConnectionMethod
from dbt.adapters.sparkpy.connections import SparkpyConnectionManager
from dbt.adapters.sparkpy.python_submissions import SessionPythonJobHelper


class SparkpyAdapter(SparkAdapter):
    """SparkAdapter whose Python models can run outside Databricks."""

    ConnectionManager = SparkpyConnectionManager

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rows_once: Dict[str, List[Tuple[Any, ...]]] = {}

    @property
    def python_submission_helpers(self) -> Dict[str, Type[PythonJobHelper]]:
        return {**super().python_submission_helpers, "session": SessionPythonJobHelper}

    @property
    def default_python_submission_method(self) -> str:
        """``session`` when there is a Spark to reach without Databricks."""
        creds = self.config.credentials
        if creds.method == SparkConnectionMethod.SESSION or getattr(creds, "connect_url", None):
            return "session"
        return super().default_python_submission_method

    def submit_python_job(self, parsed_model: Dict[str, Any], compiled_code: str) -> AdapterResponse:
        # A project may set submission_method for another adapter only (Jinja giving none here,
        # e.g. dbt-databricks' serverless_cluster): unset, so the default above applies.
        if parsed_model["config"].get("submission_method") is None:
            parsed_model["config"].pop("submission_method", None)
        return super().submit_python_job(parsed_model, compiled_code)

    @available
    def query_rows_once(self, sql: str) -> List[Tuple[Any, ...]]:
        """The rows of `sql`, queried once per dbt invocation: for answers that hold during a
        run, asked by every node that compiles (which functions the target has, when the data
        tests last passed)."""
        if sql not in self._rows_once:
            _, table = self.execute(sql, fetch=True)
            self._rows_once[sql] = [tuple(row) for row in table.rows]
        return self._rows_once[sql]

    @available
    def run_side_by_side(self, batches: List[List[str]]) -> None:
        """Runs each batch's statements in order, the batches side by side, as many at a time as
        the target has threads, each on a connection of its own: one statement's planning and
        commit (on the driver, one core) overlap another's. Raises the first failure."""
        name = self.connections.get_thread_connection().name

        def run(batch: List[str]) -> None:
            self.connections.set_connection_name(f"{name} (side by side)")
            try:
                for sql in batch:
                    self.execute(sql)
            finally:
                self.connections.release()
                self.connections.clear_thread_connection()

        with ThreadPoolExecutor(max_workers=self.config.threads) as pool:
            for _ in pool.map(run, batches):
                pass

    @available
    def missing_paths(self, paths: List[str]) -> Optional[List[str]]:
        """Those of `paths` that do not exist, as the embedded Spark's file systems see them (any
        Hadoop scheme); None where Spark does not run in this process (the thrift and http
        methods: the server sees files of its own)."""
        credentials = self.config.credentials
        if credentials.method != SparkConnectionMethod.SESSION:
            return None
        from dbt.adapters.sparkpy.session import local_session

        spark = local_session(credentials.server_side_parameters)
        jvm, hadoop_conf = spark._jvm, spark._jsc.hadoopConfiguration()
        missing = []
        for path in paths:
            hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
            if not hadoop_path.getFileSystem(hadoop_conf).exists(hadoop_path):
                missing.append(path)
        return missing

    def _get_columns_for_catalog(self, relation: BaseRelation) -> Iterable[Dict[str, Any]]:
        """dbt-spark's catalog rows, with a Delta table's row count (the docs site's "rows"): the
        metastore keeps no statistics of a Delta table; its log has every file's row count, which
        answers `count(*)` without reading a data file."""
        stats: Dict[str, Any] = {}
        if getattr(relation, "is_delta", False):
            _, table = self.execute(f"select count(*) from {relation}", fetch=True)
            stats = SparkColumn.convert_table_stats(f"{table.rows[0][0]} rows")
        for column in super()._get_columns_for_catalog(relation):
            yield {**column, **stats}
