"""Mogwai's settings (`m.getSettings()`): global options and filtered attributes, read by the
scene builder. A module of its own so the scene package does not import the renderer."""
from __future__ import annotations


class Settings:
    """Global / per-scene settings: options (dict) and filtered attributes."""

    def __init__(self) -> None:
        self.options: dict = {}
        self.filtered_attributes: list = []

    def addOptions(self, options: dict | None = None) -> None:
        _merge(self.options, options or {})

    def addFilteredAttributes(self, attributes) -> None:
        self.filtered_attributes.extend(attributes if isinstance(attributes, list) else [attributes])

    def clearOptions(self) -> None:
        self.options.clear()

    def clearFilteredAttributes(self) -> None:
        self.filtered_attributes.clear()


def _merge(dst: dict, src: dict) -> None:
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v
