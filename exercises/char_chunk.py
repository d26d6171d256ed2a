def chunk(text: str, size: int, overlap: int) -> list[str]:
    """Cut `text` into overlapping chunks of `size` characters.

    Neighbouring chunks share `overlap` characters, so a sentence that crosses a
    cut still appears whole in one of them.

    The rules the graders check:

    - A `size` of 0 or less, a negative `overlap`, or an `overlap` equal to or
      larger than `size` raises ValueError (the window would never move
      forward). This holds even for a text shorter than `size`, or empty:
      check the settings before anything else.
    - Empty text gives an empty list `[]`.
    - Each chunk is the window `text[i:i + size]`. `i` starts at 0 and moves
      forward by `size - overlap` each time.
    - Stop as soon as a window reaches the end of the text (`i + size >= len(text)`),
      so no tiny trailing scrap is added after it. The last chunk holds what is
      left of the text, so it may be shorter than `size`.
    - So: the last `overlap` characters of a chunk are the first `overlap`
      characters of the next; `chunks[0]` followed by `c[overlap:]` for every
      later chunk `c` rebuilds the text exactly; every chunk but the last has
      exactly `size` characters; a text no longer than `size` is one chunk.
    - Every character counts as it is: spaces, tabs, line breaks (`\r\n` is two
      characters, a lone `\r` one), Unicode whitespace such as `\u2028` and
      accented letters are never removed, normalised or expanded.
    - Documents are long: a text of 200,000 characters is chunked correctly
      with no recursion limit reached, and the work grows in step with the
      text: ten times the text may take a few times ten as long (own CPU time),
      never the square.
    - Return a list of strings (not a tuple, not a generator).
    - Use Python's standard library only: an import of any other module (numpy,
      nltk, ...), even inside a try, is reported as import_blocked and nothing is graded.

    Examples:
        chunk("abcdefgh", 3, 1)  ->  ["abc", "cde", "efg", "gh"]
        chunk("abcdefg", 3, 1)   ->  ["abc", "cde", "efg"]
        chunk("hello", 10, 2)    ->  ["hello"]
        chunk("", 4, 1)          ->  []
        chunk("abc", 3, 3)       ->  raises ValueError
    """
    raise NotImplementedError(
        "write chunk(): slide a window of size characters forward by size - overlap"
    )
