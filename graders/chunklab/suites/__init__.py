"""The pytest grader suites, one folder per lesson, and the vocabulary they are written in."""
