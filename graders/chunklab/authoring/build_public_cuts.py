"""Writes the fixed tables the public checks of chunking_pipeline use: `public_cuts.json`.

The public checks must not carry the code that works out where a chunk may end
(that is the lesson's algorithm), so they carry its answers on their own texts:
for every start that an allowed chunking reaches, the ends the rules allow.
Run `python -m chunklab.authoring.build_public_cuts` after changing those texts
or the cutting rules; a kit test fails while the file is out of date.
"""

from __future__ import annotations

import json
from typing import Any

from chunklab.suites.chunking_pipeline.hidden_cutting import ends_table
from chunklab.suites.chunking_pipeline.test_visible import PUBLIC_CUTS_FILE, STORY, WORDS

# The public texts and settings of each check that looks at where chunks end.
PUBLIC_CASES = {
    "sentence ends": [(STORY, 40, 8), (STORY, 60, 15), (STORY, 35, 0)],
    "whitespace": [(WORDS, 20, 5), (WORDS, 33, 10), (WORDS, 16, 0)],
}
# The checks of sentence ends leave which whitespace a window without one ends at to
# the whitespace checks (see `allowed_ends`).
ANY_WHITESPACE = {"sentence ends"}


def public_cuts() -> dict[str, list[dict[str, Any]]]:
    return {
        name: [
            {
                "text": text,
                "chunk_size": chunk_size,
                "overlap": overlap,
                "ends": {
                    str(start): {str(end): kind for end, kind in sorted(ends.items())}
                    for start, ends in ends_table(
                        text, chunk_size, overlap, any_whitespace=name in ANY_WHITESPACE
                    ).items()
                },
            }
            for text, chunk_size, overlap in cases
        ]
        for name, cases in PUBLIC_CASES.items()
    }


def public_cuts_text() -> str:
    return json.dumps(public_cuts(), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    PUBLIC_CUTS_FILE.write_text(public_cuts_text(), encoding="utf-8")
    print(f"wrote {PUBLIC_CUTS_FILE}")


if __name__ == "__main__":
    main()
