"""The kinds of background job; each module registers its own (registry.job_kind)."""
