"""What every staff and public form shares (issue 16 "Forms", the GOV.UK pattern the public forms already
used): a refused form re-renders with what was typed, an error summary linking to each field and the error at
the field (Django ties ``<id>_error`` to the input by aria-describedby and sets aria-invalid); the template is
``web/_form.html``.

A service's refusal names the input it concerns with a ``field`` attribute (``FieldRefusal`` or an error class
that carries one, like ``ReliefError``); ``add_refusal`` puts it at that field when the form has it, at the top
otherwise. Legal acts never preselect their outcome: ``CHOOSE`` is the first, empty choice of such a select."""
from __future__ import annotations

from django import forms

CHOOSE = ("", "— choose —")  # the first option of a select on a legal act: nothing is decided by default


class Refusal(Exception):
    """A service saying no that is not a ``ValueError`` (a transition its state table refuses: a domain's error
    class derives from this, e.g. ``cases.services.TransitionError``), so that the toolkit (``web.postdata``) knows
    a refusal without importing the domain; ``field`` names the input it concerns when there is one."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


class FieldRefusal(ValueError):
    """A refusal about one input (``field``: the posted name), the message saying why."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def add_refusal(form: forms.Form, error: Exception) -> None:
    """The refusal ``error`` at its field in ``form`` (``error.field``, else a message starting "<field name>: ", as
    ``web.postdata.refused_field`` reads it), or at the top of the form."""
    field = getattr(error, "field", None)
    if not field:
        lead = str(error).partition(": ")[0]
        field = lead if lead in form.fields else None
    form.add_error(field if field in form.fields else None, str(error))


def form_refusal(form: forms.Form, message: str | None = None) -> FieldRefusal:
    """An invalid Django form behind a hand-written row form, as one refusal for ``web.postdata.refused``: the first
    field in error is the input marked (by its posted name), ``message`` (or that field's errors) the text."""
    name = next((n for n in form.errors if n != forms.forms.NON_FIELD_ERRORS), None)
    text = message or " ".join(form.errors[name] if name else form.non_field_errors())
    return FieldRefusal(text, form.add_prefix(name) if name else None)


def form_auto_id(name: str) -> str:
    """Element ids of a form that shares its page with others: ``id_<name>-<field>`` (the posted names stay
    as they are; the JSON API and older clients post the same names)."""
    return f"id_{name}-%s"
