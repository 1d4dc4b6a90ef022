"""The installation's town configuration (``rules.town.TownConfig``), read once from the data folder.

``$STORMWATER_DATA_DIR/town.toml`` may hold a ``[town]`` table overriding any TownConfig field, e.g.::

    [town]
    name = "Town of Longmeadow"

A missing file means Longmeadow's defaults. A bad file stops with a message naming the setting.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from django.conf import settings

from stormwater.rules.town import TownConfig, town_config_from


def config_path() -> Path:
    return Path(settings.DATA_DIR) / "town.toml"


@lru_cache(maxsize=1)
def town_config() -> TownConfig:
    path = config_path()
    if not path.exists():
        return TownConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RuntimeError(f"{path}: cannot read the town configuration ({e})") from None
    try:
        return _checked(town_config_from(data.get("town", {})))
    except ValueError as e:
        raise RuntimeError(f"{path}: {e}") from None


def _checked(cfg: TownConfig) -> TownConfig:
    """Names that refer to this application's vocabularies (which the pure rules package cannot import)."""
    from stormwater.roles import Role

    unknown = [r for r in cfg.totp_required_roles if r not in Role.values]
    if unknown:  # a typo must not silently turn two-factor sign-in off for a role
        raise ValueError(f"totp_required_roles: unknown role(s) {', '.join(unknown)}; "
                         f"the roles are {', '.join(Role.values)}")
    return cfg


def map_tiles() -> tuple[str, str]:
    """(tile URL, attribution) of the basemap under every map: the town's ``map_tile_url`` ("none" = no basemap),
    else the installation's ``settings.GIS_TILE_URL`` (issue 16). ("", "") = draw without a basemap."""
    cfg = town_config()
    url = cfg.map_tile_url.strip()
    if url == "none":
        return "", ""
    if url:
        return url, cfg.map_tile_attribution
    url = getattr(settings, "GIS_TILE_URL", "") or ""
    return url, (cfg.map_tile_attribution or getattr(settings, "GIS_TILE_ATTRIBUTION", "")) if url else ""
