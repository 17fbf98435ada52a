"""What one message of the catalog is (:class:`Message`) and how a template names its
parameters (:data:`FIELD`): the one module the catalog's package face and its tables of
entries (:mod:`.rules`, :mod:`.data`, :mod:`.workbench`) both import, so that neither
imports the other round a circle."""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FIELD", "Message"]

#: A parameter in a template: ``{name}``.
FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Message:
    """One message: its ``id``, its English template ``en`` and Chinese ``zh``; ``{name}``
    is a parameter (each template names the same ones)."""

    id: str
    en: str
    zh: str
    #: A message around another one (``{problem}: always fails``): recognised first, and
    #: only when its first parameter is a message of the catalog itself.
    wraps: bool = False

    def fields(self, language: str = "en") -> list[str]:
        """The parameters its template in ``language`` names, in order."""
        return FIELD.findall(getattr(self, language))
