from __future__ import annotations

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.utils.crypto import salted_hmac

from .roles import Role, role_has


class StormwaterUserManager(UserManager):
    def create_superuser(self, username, email=None, password=None, **extra_fields):
        """Django's ``createsuperuser`` makes a Director (what a newcomer means by it; issue 14: it used to make
        an owner with no permissions), audited. ``stormwater user add --role director`` is the documented way."""
        from stormwater.audit.services import audit_record

        extra_fields.setdefault("role", Role.DIRECTOR)
        user = super().create_superuser(username, email, password, **extra_fields)
        audit_record(actor=None, action="user.create", obj=user, why="stormwater createsuperuser (command line)",
                     data={"username": user.username, "role": user.role, "email": user.email,
                           "password": "set" if password else "none"})
        return user


class User(AbstractUser):
    """A person who signs in. One role each; an owner is linked to owner records (parcels.Owner.user)."""

    role = models.CharField(max_length=20, choices=Role.choices, default=Role.OWNER)
    # Printed with the name on what the person signs, e.g. an inspection report (Ch. 380 § 380-16 C(4)(f)[1][b]
    # "name of inspector and inspector's credentials"): "CPESC #1234", "CESSWI", "MA PE 45678".
    credentials = models.CharField(max_length=200, blank=True)

    objects = StormwaterUserManager()

    def can(self, perm: str) -> bool:
        return self.is_active and role_has(self.role, perm)

    @property
    def is_staff_role(self) -> bool:
        return self.role not in (Role.OWNER, Role.CONSULTANT)

    def _get_session_auth_hash(self, secret=None):
        """Django ends every session whose stored hash no longer matches this one. Django's covers the password
        (a password change signs the person out elsewhere); ours covers the role too, so a role change ends the
        person's open sessions and the new role's rules (two-factor sign-in, idle timeout) apply from the next
        sign-in (issue 14)."""
        return salted_hmac("stormwater.accounts.User.get_session_auth_hash", f"{self.password}\0{self.role}",
                           secret=secret, algorithm="sha256").hexdigest()


class Registration(models.Model):
    """Who signed up without a bill's code (issue 18): an applicant, a design engineer or a contractor, with the
    firm and contact printed on what they sign and, for an engineer, the professional registration (a
    Massachusetts Professional Engineer stamps the stormwater plans, Ch. 380 § 380-10 B and § 380-15)."""

    class Kind(models.TextChoices):
        APPLICANT = "applicant", "Applicant"
        DESIGN_ENGINEER = "design_engineer", "Design engineer"
        CONTRACTOR = "contractor", "Contractor"

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="registration")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    firm = models.CharField(max_length=200, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    mailing_address = models.TextField(blank=True)
    pe_state = models.CharField(max_length=2, blank=True, help_text="state of the PE registration (e.g. MA)")
    pe_number = models.CharField(max_length=40, blank=True, help_text="professional engineer registration number")
    created_at = models.DateTimeField(auto_now_add=True)

    @property
    def pe(self) -> str:
        return f"PE {self.pe_state} No. {self.pe_number}" if self.pe_number else ""
