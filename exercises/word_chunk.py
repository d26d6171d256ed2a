def solve(text: str, size: int, overlap: int) -> list[str]:
    """Cut `text` into overlapping chunks of `size` words.

    Neighbouring chunks share `overlap` words. The inputs are always valid:
    `size` is 1 or more and `overlap` is between 0 and `size - 1`.

    The rules the graders check:

    - Words are the runs of non-whitespace characters: spaces, tabs and line
      breaks all separate words, and a run of them counts as one separator.
      Whitespace at the start or end of the text is not a word.
    - A chunk is `size` consecutive words joined by single spaces.
    - The first chunk starts at the first word; the next chunk starts
      `size - overlap` words later, so it begins with the last `overlap` words
      of the chunk before it.
    - Stop once a chunk holds the last word: no chunk follows it. The last
      chunk may hold fewer than `size` words.
    - A text with no words (empty, or only whitespace) gives an empty list `[]`.
    - Words are kept exactly as written: punctuation and capital letters stay,
      and a word that appears many times counts every time.
    - Return a list of strings (not a tuple, a generator or lists of words).
    - Documents are long: a text of 200,000 characters is chunked correctly
      with no recursion limit reached, and the work grows in step with the
      text: ten times the text may take a few times ten as long (own CPU time),
      never the square.
    - Use Python's standard library only: an import of any other module (numpy,
      nltk, ...), even inside a try, is reported as import_blocked and nothing is graded.

    Examples:
        solve("the cat sat on the red mat", 4, 2)
            ->  ["the cat sat on", "sat on the red", "the red mat"]
        solve("a b c d e", 3, 1)  ->  ["a b c", "c d e"]
        solve("a b c d e", 2, 0)  ->  ["a b", "c d", "e"]
        solve("  ", 2, 0)         ->  []
    """
    raise NotImplementedError(
        "write solve(): split the text into words, then take size words at a time"
    )
