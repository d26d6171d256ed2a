"""A Gradescope autograder: the zip chunklab builds, and what runs inside it."""
