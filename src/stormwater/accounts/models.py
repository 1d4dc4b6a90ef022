from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models

from .roles import Role, role_has


class User(AbstractUser):
    """A person who signs in. One role each; an owner is linked to owner records (parcels.Owner.user)."""

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.OWNER)

    def can(self, perm: str) -> bool:
        return self.is_active and role_has(self.role, perm)

    @property
    def is_staff_role(self) -> bool:
        return self.role not in (Role.OWNER, Role.CONSULTANT)
