"""Text observations and clickables of a page, as the original text environment made them."""

from __future__ import annotations

from open_langgraph.envs.webshop.pages import Page, Segment
from open_langgraph.envs.webshop.types import ObservationMode


def text_rich(page: Page) -> str:
    """Buttons, options and products marked with ``[button] ... [button_]`` (``[clicked
    button]`` when selected or visited), one node per line; each selected option is also
    announced on top ("You have clicked ...", last on the page first)."""
    observation = ""
    for seg in page.segments:
        if seg.kind == "button":
            line = f"[button] {seg.text} [button_]"
        elif seg.kind == "option":
            if seg.clicked:
                line = f"  [clicked button] {seg.text} [clicked button_]"
                observation = f"You have clicked {seg.text}.\n" + observation
            else:
                line = f"  [button] {seg.text} [button_]"
        elif seg.kind == "product":
            tag = "clicked button" if seg.clicked else "button"
            line = f"\n[{tag}] {seg.text} [{tag}_]"
        else:
            line = seg.text
        observation += line + "\n"
    return observation


def text_simple(page: Page) -> str:
    """Visible text nodes, stripped, joined by `` [SEP] ``."""
    return " [SEP] ".join(seg.text.strip() for seg in page.segments)


def render(page: Page, mode: ObservationMode) -> str:
    """The observation of ``page`` in ``mode``."""
    if mode == "text_rich":
        return text_rich(page)
    if mode == "text":
        return text_simple(page)
    raise ValueError(f"unsupported observation mode {mode!r}")


def clickables(page: Page) -> dict[str, Segment]:
    """Clickable name -> its segment: buttons then product links (lower-cased), then option
    values. A later option with the same value replaces the earlier one but keeps its
    position, as the original's dict did."""
    targets: dict[str, Segment] = {}
    for seg in page.segments:
        if seg.kind in ("button", "product"):
            targets[seg.text.lower()] = seg
    for seg in page.segments:
        if seg.kind == "option":
            targets[seg.text] = seg
    return targets
