"""What an embedded Spark needs before it starts, checked so that a missing piece is one clear
error rather than a JVM's stack traces: a Java that runs this pyspark, and a metastore no other
process holds (embedded Derby admits one JVM; a second one fails deep in Hive's client)."""

import fcntl
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping, Optional

import pyspark
from dbt_common.exceptions import DbtRuntimeError

DERBY_URL_KEYS = ("javax.jdo.option.ConnectionURL", "spark.hadoop.javax.jdo.option.ConnectionURL")


def required_java() -> int:
    """The oldest Java this pyspark runs on: 17 for Spark 4, 8 before."""
    return 17 if int(pyspark.__version__.split(".")[0]) >= 4 else 8


def java_version(java: str) -> Optional[int]:
    """The feature release of `java` (8 for 1.8), or None when it does not say."""
    done = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    found = re.search(r'version "(\d+)(?:\.(\d+))?', done.stderr + done.stdout)
    if found is None:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major


def check_java() -> None:
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if java is None or not Path(java).exists():
        raise DbtRuntimeError(
            f"Spark needs Java {required_java()} or later, and none was found (JAVA_HOME is unset and "
            "`java` is not on PATH). Install it (Debian: openjdk-17-jre-headless) or set JAVA_HOME."
        )
    version = java_version(java)
    if version is not None and version < required_java():
        raise DbtRuntimeError(
            f"Spark {pyspark.__version__} needs Java {required_java()} or later; {java} is Java {version}. "
            "Set JAVA_HOME to a newer one."
        )


def derby_folder(parameters: Mapping[str, Any]) -> Optional[Path]:
    """The embedded Derby metastore's folder that the session's parameters name, if any."""
    for key in DERBY_URL_KEYS:
        found = re.search(r"jdbc:derby:(?:;)?(?:databaseName=)?([^;]+)", str(parameters.get(key, "")))
        if found:
            return Path(found.group(1))
    return None


def check_metastore_free(parameters: Mapping[str, Any]) -> None:
    """Derby holds an exclusive lock on `dbex.lck` while a JVM has the database open."""
    folder = derby_folder(parameters)
    lock = folder / "dbex.lck" if folder else None
    if lock is None or not lock.exists():
        return
    with lock.open("rb+") as handle:
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise DbtRuntimeError(
                f"The warehouse's metastore {folder.resolve()} is open in another process: another dbt "
                "command, a SQL console or a Spark server on the same folder. Close it and run again, "
                "or give this command a metastore of its own (the profile's javax.jdo.option.ConnectionURL)."
            ) from None
        fcntl.lockf(handle, fcntl.LOCK_UN)
