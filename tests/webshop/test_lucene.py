"""Lucene analysis details that decide BM25 rankings."""

from __future__ import annotations

import pytest

from open_langgraph.envs.webshop.lucene import EnglishAnalyzer, quantized_length, tokenize


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("2.4Ghz wi-fi", ["2.4Ghz", "wi", "fi"]),
        ("men's 1,000 x-large", ["men's", "1,000", "x", "large"]),
        ("description:solid us:6", ["description:solid", "us", "6"]),
        ("1-1\u20442 inch", ["1", "1\u20442", "inch"]),
        ("size:s _ us", ["size:s", "us"]),
        ("love ❤ it 🌸🌸", ["love", "❤", "it", "🌸", "🌸"]),
    ],
)
def test_tokenizer_follows_word_segmentation(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_analyzer_drops_possessives_and_stop_words_and_stems() -> None:
    analyzer = EnglishAnalyzer()
    assert analyzer("The Baker's racks for assembly") == ["baker", "rack", "assembl"]
    # Martin Porter's own "bli" -> "ble" departure: assembly and assemble share a stem.
    assert analyzer("assemble") == analyzer("assembly")


@pytest.mark.parametrize(
    ("length", "stored"), [(0, 0), (23, 23), (24, 24), (40, 40), (127, 120), (300, 280)]
)
def test_lengths_round_trip_through_one_byte(length: int, stored: int) -> None:
    assert quantized_length(length) == stored
