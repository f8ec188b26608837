"""setuptools (the rest of the configuration is in pyproject.toml): the C scanner of the `binlog`
Spark source, `pipeline/_binlog_scan.c`, a plain C library loaded with ctypes by
`pipeline/native.py`. Optional: without a C compiler the install goes on without it, and the
source uses its numpy decoder."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("pipeline._binlog_scan", ["pipeline/_binlog_scan.c"], optional=True,
              extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"]),
])
