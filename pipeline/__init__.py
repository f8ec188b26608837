"""The data pipeline on Spark: a `binlog` PySpark data source over binlog and relay log files
(`pipeline.source`, decoded column-wise by `pipeline.decode`) and the jobs built on it
(`pipeline.jobs`: events, audit, stats), run by `semisync pipeline ...` or `spark-submit`.

Imports protocol/ and binlog/ only (tests/unit/test_layering.py).
"""
