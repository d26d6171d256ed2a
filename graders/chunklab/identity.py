"""Who a student is: one rule, used wherever two names or ids are compared.

Two spellings are the same student when they are equal once Unicode
compatibility forms are folded (NFKC: a Kelvin sign is a K, a full-width
letter its plain one), case is folded and the spaces at either end are
dropped. Nothing else is folded: `mary.ann`, `mary-ann` and `mary_ann` stay
three students, and so does a name with an invisible character in it.
"""

from __future__ import annotations

import unicodedata


def same_student(name: str) -> str:
    """The key under which `name` is one student: NFKC, case folded, no spaces at the ends."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).strip()
