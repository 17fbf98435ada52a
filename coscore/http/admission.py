"""What a server admits: JSON budgets and per-client caps, in one value both servers take.

:class:`Admission` gathers the budgets on what a request may bring, besides its size and
time: the :class:`~.jsonscan.JsonBudget` every body is counted against as it arrives, the
requests one client may have open at once (:class:`~.clients.ClientGate`) and the bytes
of bodies one client may hold (:class:`~.bodies.InFlight`). A server's ``create_app``
takes one (``admission=``) and builds its body limits and its client gate from it;
``coscore serve`` and ``coscore app`` build it from their options
(:func:`coscore.http.options.admission`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from starlette.middleware import Middleware

from .bodies import BodyLimits, InFlight
from .clients import DEFAULT_CLIENT_REQUESTS, ClientGate
from .jsonscan import JsonBudget

__all__ = ["Admission"]


@dataclass(frozen=True)
class Admission:
    """``json``: the budget of every JSON body; ``client_requests``: requests one client may
    have open at once (``None``: no cap); ``client_in_flight``: bytes of bodies one client
    may hold at once (``None``: a quarter of the server's in-flight budget, and at least
    one largest body; ``0``: no cap)."""

    json: JsonBudget = field(default_factory=JsonBudget)
    client_requests: int | None = DEFAULT_CLIENT_REQUESTS
    client_in_flight: int | None = None

    def __post_init__(self) -> None:
        if self.client_requests is not None and self.client_requests < 1:
            raise ValueError("client_requests must be >= 1 (or None)")
        if self.client_in_flight is not None and self.client_in_flight < 0:
            raise ValueError("client_in_flight must be >= 0 (or None)")

    def per_client_in_flight(self, max_body: int, max_in_flight: int | None) -> int | None:
        """The bytes of bodies one client may hold, given the server's ``max_body`` and
        ``max_in_flight`` (see the class)."""
        if self.client_in_flight is not None:
            return self.client_in_flight or None
        if max_in_flight is None:
            return None
        return max(max_body, max_in_flight // 4)

    def body_limits(self, max_body: int, timeout: float | None, max_in_flight: int | None) -> BodyLimits:
        """How a server reads bodies: ``max_body`` bytes at most, within ``timeout`` seconds,
        ``max_in_flight`` bytes of them at once (``None``: no cap), each client's share
        and the JSON budget as this says."""
        in_flight = InFlight(max_in_flight, self.per_client_in_flight(max_body, max_in_flight))
        return BodyLimits(max_body, timeout, in_flight, json=self.json)

    def middleware(self) -> Middleware:
        """The :class:`~.clients.ClientGate` to put first in a server's middleware."""
        return Middleware(ClientGate, limit=self.client_requests)
