"""The kinds of job there are: each a name, the permission to start and see it, how its params are checked,
its title, and its body. Modules of ``jobs/kinds/`` register theirs with ``@job_kind``.

A body is ``body(job) -> dict | None`` (the result, JSON). It reads ``job.params``, reports with
``job.progress(done, total)`` and ``job.log(line)``, writes in short transactions of its own, and is
idempotent: run again after a crash (``kill -9``) it reaches the same result and repeats no side effect.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

ERR_UNKNOWN_KIND = "job kind: {kind!r} is not a kind of job (known: {known})"


class JobParamError(ValueError):
    """A job's params are wrong; the message starts with the param's name."""


@dataclass(frozen=True)
class JobKind:
    name: str
    # The permission to start a job of this kind and to see every one of them. OWN_JOB (""): anyone signed in may
    # start one, and only its starter sees it (a list's Excel file, issue 29: the rows that person may see).
    perm: str
    body: Callable
    title: Callable[[dict], str]
    clean: Callable[[dict], dict] = field(default=lambda p: p)
    subject: Callable[[dict], str] = field(default=lambda p: "")
    label: str = ""  # what the button says, e.g. "Email the bills"
    # params → why the job's file may no longer be downloaded ("" while it may): e.g. the print file of a bill run
    # voided since (issue 25: a voided run's bills must not be printed or mailed).
    withdrawn: Callable[[dict], str] = field(default=lambda p: "")
    # (job, user) → why this person may not have the job's file ("" while they may): a list's Excel file made before
    # its starter's role changed holds the rows the former role could see (issue 29, jobs/kinds/listexport.py).
    withheld: Callable[[Any, Any], str] = field(default=lambda job, user: "")
    # cleaned params → the ``web.confirm.Confirmation`` a person answers before the job starts from a page (a bulk act
    # that cannot be taken back: e-mailing every bill), or None. The API and the CLI do not ask.
    confirm: Callable[[dict], Any] | None = None


KINDS: dict[str, JobKind] = {}
OWN_JOB = ""


def may_start(user, kind: JobKind) -> bool:
    return kind.perm == OWN_JOB or user.can(kind.perm)


def sees_all(user, kind: JobKind) -> bool:
    """Whether ``user`` sees every job of ``kind`` (everyone sees their own)."""
    return kind.perm != OWN_JOB and user.can(kind.perm)


def job_kind(name: str, *, perm: str, title: Callable[[dict], str], label: str,
             clean: Callable[[dict], dict] | None = None, subject: Callable[[dict], str] | None = None,
             withdrawn: Callable[[dict], str] | None = None, confirm: Callable[[dict], Any] | None = None,
             withheld: Callable[[Any, Any], str] | None = None):
    """Register the decorated function as the body of job kind ``name``."""
    def deco(body):
        KINDS[name] = JobKind(name=name, perm=perm, body=body, title=title, label=label,
                              clean=clean or (lambda p: p), subject=subject or (lambda p: ""),
                              withdrawn=withdrawn or (lambda p: ""), confirm=confirm,
                              withheld=withheld or (lambda job, user: ""))
        return body
    return deco


def kind_get(name: str) -> JobKind:
    try:
        return KINDS[name]
    except KeyError:
        raise JobParamError(ERR_UNKNOWN_KIND.format(kind=name, known=", ".join(sorted(KINDS)))) from None


# --- param helpers for clean(): the web form sends strings, the API and the CLI typed values ----------------

def int_param(params: dict, name: str) -> int:
    raw = params.get(name)
    if isinstance(raw, bool) or raw in (None, ""):
        raise JobParamError(f"{name}: required, a whole number")
    try:
        value = int(str(raw))
    except ValueError:
        raise JobParamError(f"{name}: {raw!r} is not a whole number") from None
    if value < 1:
        raise JobParamError(f"{name}: must be 1 or more")
    return value


def choice_param(params: dict, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
    raw = params.get(name, default)
    if raw not in choices:
        raise JobParamError(f"{name}: {raw!r} is not one of {', '.join(choices)}")
    return raw


def only_params(params: dict, names) -> None:
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise JobParamError(f"unknown param{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
