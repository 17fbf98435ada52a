"""What a server is started with, in one value: :class:`ServerSettings`.

``coscore serve``, ``coscore app`` and ``coscore workbench`` build one from their
command line once (:func:`coscore.cli.server_options.server_settings`) and hand it to
their ``create_app`` and to :func:`coscore.http.options.serve`; an embedding program
builds one itself::

    from coscore.http.settings import ServerSettings
    from coscore.server import create_app

    app = create_app(ServerSettings(workers=1, timeout=2.0))

Every field has the service's default; ``coscore app`` has larger bodies and longer
timeouts by default (:data:`coscore.webapp.routes.DEFAULT_SETTINGS`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..limits import DEFAULT_LIMITS, Limits
from .admission import Admission
from .options import DEFAULT_HEADER_TIMEOUT, DEFAULT_IN_FLIGHT
from .proxy import Proxy

__all__ = ["ServerSettings"]


@dataclass(frozen=True)
class ServerSettings:
    """How a server listens, whom it answers, and its budgets.

    Listening (used by :func:`~coscore.http.options.serve`, not by ``create_app``):
    ``host``, ``port``, ``log_level``, ``header_timeout`` (seconds a client may take to send
    a request's headers) and ``notes`` (lines printed at start, e.g. the address to open
    with the token).

    Budgets: ``max_body`` bytes per request body, read within ``body_timeout`` seconds
    (``None``: no limit), ``max_in_flight`` bytes of bodies at once over every request
    (``None``: no cap); ``workers`` worker processes, each job within ``timeout`` seconds
    and ``memory`` bytes of growth (``None``: unbounded); rules compiled with ``limits``;
    ``admission``: the JSON budget of a body and what one client may hold at once.

    Access: ``allowed_hosts``, the names the ``Host`` header may give (``None``: any);
    ``token``, the token every request must carry (``None``: none); ``proxy``: the trusted
    proxies whose ``X-Forwarded-*`` headers count and the path prefix
    (:class:`~coscore.http.proxy.Proxy`).
    """

    max_body: int = 16 * 2**20
    workers: int = 2
    timeout: float = 5.0
    memory: int | None = 2**30
    body_timeout: float | None = 10.0
    max_in_flight: int | None = DEFAULT_IN_FLIGHT
    limits: Limits = DEFAULT_LIMITS
    admission: Admission = field(default_factory=Admission)
    allowed_hosts: frozenset[str] | None = None
    token: str | None = None
    proxy: Proxy = field(default_factory=Proxy)
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.max_body < 0:
            raise ValueError("max_body must be >= 0")
        if self.workers < 1:
            raise ValueError("workers must be >= 1")
        if not self.timeout > 0:
            raise ValueError("timeout must be > 0")
        if self.body_timeout is not None and not self.body_timeout > 0:
            raise ValueError("body_timeout must be > 0 (or None)")
        if self.memory == 0:
            object.__setattr__(self, "memory", None)
        if self.max_in_flight == 0:
            object.__setattr__(self, "max_in_flight", None)

    def replace(self, **changes: Any) -> ServerSettings:
        """These settings with ``changes`` (field names); ``TypeError`` naming an unknown one."""
        if not changes:
            return self
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"unknown server setting {unknown[0]!r}; the settings are: {', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes)
