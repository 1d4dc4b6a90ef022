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


def config_problems(data: dict) -> list[str]:
    """Every problem of a parsed town.toml (``stormwater config check``; issue 28): tables other than [town],
    unknown settings, wrong types and out-of-range values, each named — not only the first, as reading does."""
    from dataclasses import fields

    problems = [f"[{k}]: unknown table (the settings go under [town])" if isinstance(v, dict)
                else f"{k}: a setting outside the [town] table" for k, v in data.items() if k != "town"]
    town = data.get("town", {})
    if not isinstance(town, dict):
        return [*problems, "town: expected a [town] table"]
    known = {f.name for f in fields(TownConfig)}
    for key in sorted(set(town) - known):
        problems.append(f"{key}: unknown setting (town.example.toml lists every one)")
    good = {}
    for key in sorted(set(town) & known):
        try:
            town_config_from({key: town[key]})
        except ValueError as e:
            problems.append(str(e).removeprefix("town configuration: "))
        else:
            good[key] = town[key]
    if good:  # those that are fine alone, together (ranges across settings) and the role names
        try:
            _checked(town_config_from(good))
        except ValueError as e:
            problems.append(str(e).removeprefix("town configuration: "))
    return list(dict.fromkeys(problems))


def config_check(path: Path) -> tuple[list[str], int]:
    """(problems, number of settings the file sets) of the town.toml at ``path``."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"{path}: no such file"], 0
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return [f"{path}: not a readable TOML file ({e})"], 0
    town = data.get("town", {})
    return config_problems(data), len(town) if isinstance(town, dict) else 0


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
