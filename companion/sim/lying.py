"""Stacks left lying between a rendered camera's frames: what no hand touched lies as it lay."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Lying:
    """The stacks a table's last frame showed, site by site, with the layout's names they stood for: a stack no hand
    touched since (the same names on its site) lies as it lay, where a fresh draw would move every piece on the board
    a little between two frames, as no table does. A stack set down, or changed, is drawn afresh."""

    def __init__(self) -> None:
        self._stacks: dict[str, tuple[tuple[str, ...], tuple[Any, ...]]] = {}

    def untouched(self, layout: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[Any, ...]]:
        """The stacks of `layout` that lie as the last frame left them."""
        return {
            site: stack
            for site, (names, stack) in self._stacks.items()
            if stack and tuple(layout.get(site, ())) == names
        }

    def left(self, layout: Mapping[str, tuple[str, ...]], stacks: Mapping[str, tuple[Any, ...]]) -> None:
        """The stacks this frame shows (each site's pieces, bottom first), for the next frame."""
        self._stacks = {site: (tuple(layout[site]), tuple(stack)) for site, stack in stacks.items()}

    def touched(self, layout: Mapping[str, tuple[str, ...]]) -> None:
        """The hands left `layout` on the table, with no frame taken of it: a stack whose site changed was picked
        up, and is drawn afresh when it is set down again, even the same pieces on the same site."""
        self._stacks = {site: kept for site, kept in self._stacks.items() if tuple(layout.get(site, ())) == kept[0]}
