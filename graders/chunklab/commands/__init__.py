"""One module per command; each exposes a single function the CLI calls."""
