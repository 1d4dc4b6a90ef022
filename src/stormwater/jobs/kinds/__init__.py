"""The kinds of background job; each module registers its own (registry.job_kind)."""
from . import billing, daily, exports, gis, listexport  # noqa: F401
