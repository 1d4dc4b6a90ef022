"""Town of Longmeadow DPW Stormwater Division: stormwater utility and land-disturbance permits."""
# The release's version, in this one place: pyproject.toml reads it (setuptools dynamic version), `stormwater
# --version` prints it, backups record it, `stormwater upgrade` compares it. CHANGELOG.md has a section for it.
__version__ = "1.2.0"
