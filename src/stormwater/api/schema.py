"""Small helpers to write the JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of ``endpoints.py`` tersely,
and the ``Op`` record that describes one operation (method, body, query, answers)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stormwater.web.jsonapi import MAX_AMOUNT, MAX_WHOLE

Schema = dict[str, Any]

STR: Schema = {"type": "string"}
TEXT: Schema = {"type": "string", "description": "free text"}
BOOL: Schema = {"type": "boolean"}
DATE: Schema = {"type": "string", "format": "date", "description": "YYYY-MM-DD"}
DATETIME: Schema = {"type": "string", "description": "YYYY-MM-DDTHH:MM (Eastern time unless an offset is given)"}
MONEY_OUT: Schema = {"type": "string", "pattern": r"^-?\d+\.\d{2}$", "description": "money: a string with two decimals"}
ANY_OBJECT: Schema = {"type": "object"}
NUMBER_OUT: Schema = {"type": ["string", "number"]}


def money(desc: str = "", *, minimum: float | None = None) -> Schema:
    """An amount sent as a string ("1250.00") or a JSON number; exact (read as a Decimal), finite, under 10^12."""
    s: Schema = {"type": ["string", "number"], "description": ((desc + ". ") if desc else "")
                 + f"An exact amount as a string or a number, less than {MAX_AMOUNT:,.0f} in magnitude."}
    if minimum is not None:
        s["description"] += f" At least {minimum}."
    return s


def num(lo: float | None = None, hi: float | None = None, desc: str = "", *, strings: bool = True) -> Schema:
    s: Schema = {"type": ["number", "string"] if strings else "number"}
    if lo is not None:
        s["minimum"] = lo
    if hi is not None:
        s["maximum"] = hi
    if desc:
        s["description"] = desc
    return s


def whole(lo: int = -MAX_WHOLE, hi: int = MAX_WHOLE, desc: str = "") -> Schema:
    s: Schema = {"type": "integer", "minimum": lo, "maximum": hi}
    if desc:
        s["description"] = desc
    return s


def enum(*values: str, desc: str = "") -> Schema:
    s: Schema = {"type": "string", "enum": list(values)}
    if desc:
        s["description"] = desc
    return s


def nullable(s: Schema) -> Schema:
    t = s.get("type")
    types = t if isinstance(t, list) else [t] if t else []
    if not types or "null" in types:
        return s if "null" in types else {"anyOf": [s, {"type": "null"}]}
    out = {**s, "type": [*types, "null"]}
    if "enum" in s:
        out["enum"] = [*s["enum"], None]
    return out


def array(items: Schema, desc: str = "", **kw) -> Schema:
    s: Schema = {"type": "array", "items": items, **kw}
    if desc:
        s["description"] = desc
    return s


def optional(s: Schema) -> Schema:
    """An optional field or query parameter: null (and, for a date, "") means "not given" (web.jsonapi)."""
    if s.get("format") == "date":
        return {"anyOf": [s, {"type": "string", "maxLength": 0}, {"type": "null"}],
                "description": s.get("description", "") + "; blank or null: not given"}
    return nullable(s)


def obj(props: dict[str, Schema] | None = None, required: tuple[str, ...] | list[str] = (), *, closed: bool = False,
        desc: str = "") -> Schema:
    """An object; ``closed``: unknown fields are refused by the endpoint (named in the 400). Fields not
    ``required`` also accept null (the endpoints read null as "not given")."""
    s: Schema = {"type": "object"}
    if props:
        s["properties"] = {k: v if k in required else optional(v) for k, v in props.items()}
    if required:
        s["required"] = list(required)
    if closed:
        s["additionalProperties"] = False
    if desc:
        s["description"] = desc
    return s


ERROR: Schema = obj({"error": STR}, ["error"], desc="What was wrong; bad input names the field first "
                                                    "(\"amount: 'NaN' is not a finite number\").")


@dataclass(frozen=True)
class Op:
    """One operation of one path: ``method`` (get/post), a one-line summary and the details."""

    method: str
    summary: str
    body: Schema | None = None                   # the JSON request body
    body_required: bool = False
    contents: dict[str, Schema] | None = None    # other request media types (multipart, CSV, YAML) → schema
    query: dict[str, Schema] = field(default_factory=dict)
    ok: int = 200
    response: Schema = field(default_factory=lambda: dict(ANY_OBJECT))
    description: str = ""
    params: dict[str, Schema] = field(default_factory=dict)   # path parameters' schemas (default: from the route)
    response_type: str = "application/json"
    extra_ok: tuple[int, ...] = ()               # further success statuses (e.g. 200 "already done" beside 201)
