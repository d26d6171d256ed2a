"""Where test outcomes become a score."""
