"""Where results are written: JSON Lines, per-submission files, the gradebook, Gradescope."""
