"""chunklab: autograded exercises for cutting documents into overlapping chunks."""

__version__ = "0.1.0"
