"""LASER (Ma et al. 2023): a web shopping agent exploring WebShop's Search, Result, Item and
Stopping states, with a memory buffer for a backup purchase."""

from graphs.laser.graph import graph

__all__ = ["graph"]
