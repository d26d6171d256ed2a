"""Instructor tooling: builds the lesson notebooks and the student bundle from one source."""
