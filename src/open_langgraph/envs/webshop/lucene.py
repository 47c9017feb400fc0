"""Lucene's English analysis and one-byte document lengths, for BM25 rankings that match the
original pyserini index.

* Tokens follow Unicode word segmentation (UAX #29) as Lucene's ``StandardTokenizer`` applies
  it: letters and digits join across "." and apostrophes, letters across ":", digits across
  "," ";" and the fraction slash; emoji (and a few pictographs Lucene's older emoji data
  counted: ★ ♡ ☞, found by fitting document lengths to the reference scores) are tokens too;
  Han and Hiragana characters are one token each.
* Then possessive "'s" removal, lower-casing, Lucene's 33 English stop words, and the Porter
  stemmer with the two departures of Martin Porter's own implementation ("bli" -> "ble",
  "logi" -> "log") that Lucene's ``PorterStemFilter`` also has (NLTK's MARTIN_EXTENSIONS).
* Lucene stores a document's length in one byte (``SmallFloat.intToByte4``), so BM25 sees
  lengths rounded down to 4 significant bits above 24.
"""

from __future__ import annotations

from functools import lru_cache

import regex
from nltk.stem.porter import PorterStemmer

LUCENE_ENGLISH_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)

_MID_LETTER = r":\u00b7\u0387\u05f4\u2027\ufe13\ufe55\uff1a"
_MID_NUM_LET = r".'\u2018\u2019\u2024\ufe52\uff07\uff0e"
_MID_NUM = r",;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\ufe50\ufe54\uff0c\uff1b"
_WORD = r"(?:[^\W\p{Han}\p{Hiragana}]|_)+"
_EMOJI = (
    r"[\p{Extended_Pictographic}\u2605\u2661\u261e]"
    r"(?:\u200d\p{Extended_Pictographic})*[\ufe0f\U0001F3FB-\U0001F3FF]*"
)
_TOKEN = regex.compile(
    rf"{_EMOJI}|[\p{{Han}}\p{{Hiragana}}]|{_WORD}"
    rf"(?:(?:(?<=[^\W\d_])[{_MID_LETTER}{_MID_NUM_LET}](?=[^\W\d_])"
    rf"|(?<=\d)[{_MID_NUM}{_MID_NUM_LET}](?=\d)){_WORD})*"
)
_POSSESSIVE = ("'s", "\u2019s", "\uff07s")


def tokenize(text: str) -> list[str]:
    """``StandardTokenizer`` tokens of ``text`` (before any filter).

    A run of underscores alone joins words but is no word itself, so it is dropped.
    """
    return [t for t in _TOKEN.findall(text) if t.strip("_")]


class EnglishAnalyzer:
    """Lucene's English analysis chain; stems are memoised (catalog words repeat a lot)."""

    def __init__(self) -> None:
        self._stem = lru_cache(maxsize=500_000)(PorterStemmer(PorterStemmer.MARTIN_EXTENSIONS).stem)

    def __call__(self, text: str) -> list[str]:
        """Index terms of ``text``, in order, with repeats."""
        terms = []
        for token in tokenize(text):
            if token.endswith(_POSSESSIVE):
                token = token[:-2]
            token = token.lower()
            if token and token not in LUCENE_ENGLISH_STOP_WORDS:
                terms.append(self._stem(token))
        return terms


_FREE_VALUES = 24  # lengths below this are stored exactly


def _long_to_int4(value: int) -> int:
    bits = value.bit_length()
    if bits < 4:
        return value
    shift = bits - 4
    return ((value >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(encoded: int) -> int:
    bits = encoded & 0x07
    shift = (encoded >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


def quantized_length(length: int) -> int:
    """The document length Lucene's BM25 uses: the length after a one-byte round trip."""
    if length < _FREE_VALUES:
        return length
    return _FREE_VALUES + _int4_to_long(_long_to_int4(length - _FREE_VALUES))
