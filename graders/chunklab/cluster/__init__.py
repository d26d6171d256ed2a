"""Grading on a Dask cluster: submissions travel as bytes, each task is one grading process."""
