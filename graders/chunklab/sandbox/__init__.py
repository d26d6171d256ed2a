"""Where a submission runs: a separate worker process with limits and isolation."""
