"""API tokens: how another system (the Town's finance software, a payment processor) signs in without a
browser. A token acts as its own user (``user``, role = the token's role, no password), so every view,
selector and audit row works with ``request.user`` exactly as for a person."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from stormwater.accounts.roles import Role


class ApiToken(models.Model):
    """A named token issued by the Director. Only a SHA-256 hash of the secret is stored (the secret is
    shown once, when issued); revoking sets ``revoked_at`` and deactivates the token's user."""

    name = models.CharField(max_length=80, unique=True)
    role = models.CharField(max_length=20, choices=Role.choices)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_token")
    key_hash = models.CharField(max_length=64, unique=True)  # the lookup of every request (unique index)
    prefix = models.CharField(max_length=12)                 # shown in lists so staff can tell tokens apart
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_role_display()}{', revoked' if self.revoked_at else ''})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None
