"""Roles and what each may do: the table is ``stormwater.roles`` (below the toolkit and the town configuration,
which read it too); its names stay importable from here."""
from __future__ import annotations

from stormwater.roles import ROLE_PERMS, Perm, Role, role_has  # noqa: F401
