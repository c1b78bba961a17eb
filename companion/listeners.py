"""How the table's parts tell each other what happened: one typed way, used everywhere.

A part that has news offers a `Listeners[T]` named for it (a session's `entries`, a loop's `questions`, the senses'
`changes`, the web table's `games`), and tells it one message of type T at a time; whoever wants the news subscribes
a function of one T. The message is told in the thread that made the change, after the change is made (a session's
entry after its commit), in the order the listeners subscribed; a listener that raises stops the telling there, as a
call would, so the teller decides what a failure means (the session's commit stands: the phones catch up from the
log).

>>> told = Listeners[int]()
>>> heard = []
>>> stop = told.subscribe(heard.append)
>>> told.tell(3)
>>> stop()
>>> told.tell(4)
>>> heard
[3]
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Listeners(Generic[T]):
    """The listeners of one kind of news. Thread-safe: any thread may subscribe, leave or tell."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[T], None]] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Callable[[T], None]) -> Callable[[], None]:
        """Hear every message from now on; returns the call that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def leave() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return leave

    def tell(self, message: T) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(message)

    def __len__(self) -> int:
        return len(self._listeners)
