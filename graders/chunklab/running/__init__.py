"""Where the pytest run happens: the grader suite against one submission."""
