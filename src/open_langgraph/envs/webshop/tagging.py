"""Noun extraction for the type reward.

The original scored title similarity with spaCy's ``en_core_web_sm`` noun tags, a model that is
not on PyPI and must be downloaded at run time. We use the Brill-style English tagger that
TextBlob vendors from the Pattern library (``PatternTagger``): it installs from PyPI with its
lexicon included and needs no download. Its tags differ from spaCy's on some words; the effect
on the reward is measured in ``tests/webshop/test_reward_fidelity.py`` and docs/webshop.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
# spaCy tags most capitalised words of a Title Case product name as PROPN, where the Brill
# lexicon says verb or adjective ("Pack", "Set", "Lightweight"). Counting those as nouns halves
# the type-reward disagreements with the reference (17 -> 6 of 979 vectors).
_CAPITALISED_AS_NOUN = frozenset({"VB", "VBP", "VBZ", "VBN", "VBD", "JJ"})
# spaCy splits hyphens and slashes inside words ("T-Shirt" -> "T", "-", "Shirt") and commas
# between letters; the Pattern tokenizer keeps them whole, so split first.
_INFIX = re.compile(r"(?<=[A-Za-z0-9])[-\u2013\u2014~/:<>=](?=[A-Za-z])|(?<=[A-Za-z]),(?=[A-Za-z])")

NounTagger = Callable[[str], tuple[str, ...]]
"""Maps a product name to its nouns, lower-cased, in order, with repeats."""


@lru_cache(maxsize=1)
def _pattern_tagger() -> Callable[[str], list[tuple[str, str]]]:
    # Imported lazily: loading the lexicon takes ~0.1 s, paid on the first reward only.
    from textblob.en.taggers import PatternTagger

    tag: Callable[[str], list[tuple[str, str]]] = PatternTagger().tag
    return tag


@lru_cache(maxsize=65536)
def pattern_nouns(text: str) -> tuple[str, ...]:
    """Nouns of ``text`` according to the Pattern tagger (cached: names repeat across goals)."""
    tokens = _pattern_tagger()(_INFIX.sub(lambda m: f" {m.group(0)} ", text))
    return tuple(
        word.lower()
        for word, tag in tokens
        if tag in _NOUN_TAGS or (tag in _CAPITALISED_AS_NOUN and word[:1].isupper())
    )


_tagger: NounTagger = pattern_nouns


def nouns(text: str) -> tuple[str, ...]:
    """Nouns of ``text`` with the active tagger (see :func:`set_noun_tagger`)."""
    return _tagger(text)


def set_noun_tagger(tagger: NounTagger | None) -> None:
    """Swap the noun tagger, e.g. for spaCy where its model is installed; ``None`` restores
    the default Pattern tagger."""
    global _tagger
    _tagger = tagger if tagger is not None else pattern_nouns
