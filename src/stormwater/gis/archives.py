"""Uploaded zips held to limits (issue 14, issue 26): how many files, how far they may expand (bytes written and the
ratio to the zip's own size), and no member outside its folder. Used by the GIS uploads (``services``,
``layer_upload``) and the ``gis`` command (a zip named as a layer's source)."""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from stormwater.townconfig import town_config

GIS_SUFFIXES = {".gpkg", ".geojson", ".json", ".shp", ".zip", ".csv", ".xlsx", ".xlsm", ".txt"}
ERR_UNSAFE_ZIP = "{name}: the zip holds a path outside its folder ({member}); zip the layer files themselves"
ERR_BAD_ZIP = "{name}: not a readable zip file ({why}); zip the layer files again and upload the new zip"
ERR_ZIP_MEMBERS = ("{name}: the zip holds {n:,} files, more than the limit of {limit:,} (gis_archive_max_members in "
                   "the town configuration); zip only the layers to import")
ERR_ZIP_SIZE = ("{name}: the zip would expand to more than the limit of {limit:,} MB (gis_archive_max_mb in the town "
                "configuration); zip only the layers to import")
ERR_ZIP_RATIO = ("{name}: the zip would expand to {mb:,} MB, more than {limit:,} times its own size "
                 "(gis_archive_max_ratio in the town configuration): that is not GIS data, it is refused")
# The ratio test applies only past this expanded size: small archives cannot fill a disk whatever their ratio.
RATIO_FLOOR_BYTES = 16 * 1024 * 1024
MB = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    """How far an uploaded zip may expand (issue 14): bytes written, files, and expanded/compressed size."""

    max_bytes: int
    max_members: int
    max_ratio: int

    @classmethod
    def from_town(cls) -> "ArchiveLimits":
        c = town_config()
        return cls(max_bytes=c.gis_archive_max_mb * MB, max_members=c.gis_archive_max_members,
                   max_ratio=c.gis_archive_max_ratio)


def unzip_checked(path: Path, folder: Path, *, limits: ArchiveLimits) -> list[str]:
    """Unpack a zip into ``folder`` and return the usable sources (.shp files, .gdb folders, other GIS/table files).

    Refused, before anything is written: more members than ``limits.max_members``, declared sizes over
    ``limits.max_bytes`` or over ``limits.max_ratio`` times the zip's own size (past RATIO_FLOOR_BYTES), a member
    whose path leaves ``folder`` (``..``, absolute). While writing, the bytes actually written are counted against
    ``limits.max_bytes`` too, whatever the zip declared."""
    name = path.name
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise ValueError(ERR_BAD_ZIP.format(name=name, why=e)) from None
    root = folder.resolve()
    with z:
        infos = _zip_declared_check(z, name, path.stat().st_size, limits)
        targets = []
        for info in infos:
            member = info.filename.replace("\\", "/")
            target = (folder / member).resolve()
            if member.startswith("/") or ".." in member.split("/") or not target.is_relative_to(root):
                raise ValueError(ERR_UNSAFE_ZIP.format(name=name, member=info.filename))
            targets.append((info, target))
        written = 0
        try:
            for info, target in targets:
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with z.open(info) as src, target.open("wb") as out:
                    while chunk := src.read(MB):
                        written += len(chunk)
                        _check_expansion(name, written, path.stat().st_size, limits)
                        out.write(chunk)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as e:
            raise ValueError(ERR_BAD_ZIP.format(name=name, why=e)) from None
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_dir() and p.suffix.lower() == ".gdb":
            out.append(rel)
        elif p.is_file() and p.suffix.lower() in (GIS_SUFFIXES - {".zip"}) and ".gdb/" not in rel + "/":
            out.append(rel)
    return out


def zip_checked(path: Path, *, limits: ArchiveLimits | None = None) -> None:
    """A zip named as a layer's source on the command line (read by GDAL through /vsizip/) is held to the same
    limits as an uploaded one, so a zip bomb is refused saying so, not as "cannot be read as GIS data" (issue 26).
    ValueError naming the file and the limit."""
    limits = limits or ArchiveLimits.from_town()
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise ValueError(ERR_BAD_ZIP.format(name=path.name, why=e)) from None
    with z:
        _zip_declared_check(z, path.name, path.stat().st_size, limits)


def _zip_declared_check(z: zipfile.ZipFile, name: str, compressed: int, limits: ArchiveLimits) -> list:
    """The members of ``z``, refused before anything is unpacked when too many or declared too large."""
    infos = z.infolist()
    if len(infos) > limits.max_members:
        raise ValueError(ERR_ZIP_MEMBERS.format(name=name, n=len(infos), limit=limits.max_members))
    _check_expansion(name, sum(i.file_size for i in infos), compressed, limits)
    return infos


def _check_expansion(name: str, expanded: int, compressed: int, limits: ArchiveLimits) -> None:
    if expanded > limits.max_bytes:
        raise ValueError(ERR_ZIP_SIZE.format(name=name, limit=limits.max_bytes // MB))
    if expanded > RATIO_FLOOR_BYTES and expanded > limits.max_ratio * max(compressed, 1):
        raise ValueError(ERR_ZIP_RATIO.format(name=name, mb=expanded // MB, limit=limits.max_ratio))
