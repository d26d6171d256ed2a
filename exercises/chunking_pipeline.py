"""Lesson: a sentence-aware chunking pipeline that carries document metadata.

Replace each `raise NotImplementedError(...)` with your code. Sizes are in characters.
Use Python's standard library only: an import of any other module (numpy, nltk,
...), even inside a try, is reported as import_blocked and nothing is graded.
"""

from __future__ import annotations

from typing import Any


class ChunkingPipeline:
    """Cuts texts, and documents, into overlapping chunks."""

    def __init__(self, chunk_size: int = 500, overlap: int = 50, min_chunk_size: int = 100) -> None:
        """Store the settings after checking them.

        Raise ValueError when chunk_size <= 0, when overlap < 0, when
        overlap >= chunk_size (the chunks could never move forward), or when
        min_chunk_size < 0. Every other combination is valid.
        """
        raise NotImplementedError("check the settings, then store them on self")

    def chunk_text(self, text: str) -> list[str]:
        """Cut `text` into chunks, one window at a time.

        An empty text gives [], whatever the settings. The first chunk starts at
        0. The window of a chunk that starts at `start` is
        text[start:start + chunk_size].

        - If the window reaches the end of the text, it is the last chunk, whole.
        - Otherwise the chunk ends at the last sentence end in the window: a `.`,
          `!` or `?` followed by whitespace, the mark and that whitespace both
          inside the window. End right after the mark, or after the whitespace
          that follows it: your choice.
        - With no sentence end in the window, end at the last whitespace in the
          window (keeping that whitespace or not), so no word is cut.
        - With neither, cut after exactly chunk_size characters.
        - The next chunk starts `overlap` characters before this one ends, so it
          begins with the last `overlap` characters of this chunk. A sentence end
          or whitespace only counts if that next start is after this chunk's
          start; when none counts, the next rule applies. This way chunking
          always finishes.
        - Whitespace is whatever str.isspace() accepts: spaces, tabs, line
          breaks, non-breaking spaces. Only a mark directly followed by
          whitespace ends a sentence: not `."` or `.)`, but "Mr. " does; `;`
          and `:` never do. The window's first and last characters count too.
        - Documents are long: a text of 200,000 characters is chunked correctly
          with no recursion limit reached, and the work grows in step with the
          text: ten times the text may take a few times ten as long (own CPU
          time), never the square.
        - After all the cutting, drop the chunks shorter than min_chunk_size
          (do not merge them). Dropping never moves where the other chunks start.
        """
        raise NotImplementedError("cut the text window by window, then drop the short chunks")

    def process_document(self, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """Chunk `doc["body"]`; `doc` has "id", "title", "body" and maybe "metadata".

        A missing, None or empty body gives []; a body of only whitespace is
        chunked like any other text. Each chunk is a plain dict (not a subclass
        such as OrderedDict) with: "doc_id" (the document's id exactly as given:
        an int stays an int), "chunk_index" (0, 1, 2, ... over the chunks
        returned), "text", "char_start" (where the chunk was cut from, so that
        body[char_start:char_start + len(text)] == text, even when the same text
        appears earlier in the body) and "metadata" (equal to the document's, or
        {} when it has none or it is None). Never modify `doc` or its metadata
        (advice: the grader sees only what you return, so this is not graded).
        """
        raise NotImplementedError("chunk the body and describe each chunk in a dict")

    def process_batch(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Every document's chunks in one flat list.

        Documents stay in input order, each document's chunks in order, and
        chunk_index starts again at 0 for each document.
        """
        raise NotImplementedError("process each document and put all the chunks in one list")
