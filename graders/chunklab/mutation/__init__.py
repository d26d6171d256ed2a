"""Proving the graders by mutation: `chunklab validate --mutants`.

Each lesson's reference is changed a little in every way a mutation library
knows, and in a few classic ways it does not (`making`). Each change is graded
like any submission; each one that keeps full marks is run on the lesson's own
oracle of the stated rules (`rule_checks`) over exhaustive small inputs and the
hidden ones (`inputs`), which tells a blind spot of the suites (a gap) from a
change the rules allow and from one no input can tell apart (`survivors`).
"""
