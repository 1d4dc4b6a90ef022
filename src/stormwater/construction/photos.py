"""Photos of field inspections: what the camera wrote into the image (EXIF time and GPS position), a thumbnail for
pages, and a smaller copy for the report PDF (Pillow). No Django import: plain bytes in, plain values out.

The time and position shown with a photo are the camera's, read from the file — never the browser's claim — so a
photo taken offline at 09:58 and sent at 14:00 still says 09:58. A camera that writes no EXIF (some apps strip it)
gives a photo with no time and no position, which the report says.

EXIF (JEITA CP-3451): DateTimeOriginal (0x9003) "YYYY:MM:DD HH:MM:SS" in the camera's local clock, OffsetTimeOriginal
(0x9011) "+HH:MM" where the camera records it; GPS IFD: GPSLatitudeRef/GPSLatitude (1/2), GPSLongitudeRef/
GPSLongitude (3/4) as degrees, minutes, seconds rationals.
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from PIL import ExifTags, Image, ImageOps, UnidentifiedImageError

THUMB_PX = 320     # the longer side of a thumbnail on the report page [px]
PDF_PX = 1000      # the longer side of a photo printed in the report PDF (≈ 150 dpi over 6.5 in) [px]
MAX_PIXELS = 80_000_000  # a 64-megapixel phone camera fits; larger is refused as a possible decompression bomb

TAG_DATETIME = 0x0132
TAG_DATETIME_ORIGINAL = 0x9003
TAG_OFFSET_TIME_ORIGINAL = 0x9011
GPS_LAT_REF, GPS_LAT, GPS_LON_REF, GPS_LON = 1, 2, 3, 4

ERR_NOT_IMAGE = "“{name}” is not a photo this system can read (JPEG or PNG)."
ERR_HEIC = ("“{name}” is an HEIC photo, which cannot be printed in the report: take the photo with the report's "
            "camera button (phones send JPEG from a web page) or set the camera to “Most Compatible”.")


class PhotoError(ValueError):
    """The file is not a readable photo."""


@dataclass(frozen=True)
class PhotoFacts:
    """What the image says about itself. ``taken_at`` is aware when the camera wrote its UTC offset, else naive
    (the camera's local clock; the caller puts it in the town's time zone)."""

    format: str
    width: int
    height: int
    taken_at: datetime | None
    latitude: float | None
    longitude: float | None


def _open(data: bytes, name: str = "photo") -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data))
            if im.width * im.height > MAX_PIXELS:
                raise PhotoError(ERR_NOT_IMAGE.format(name=name))
            im.load()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombWarning,
            Image.DecompressionBombError):
        raise PhotoError(ERR_NOT_IMAGE.format(name=name)) from None
    return im


_EXIF_TIME = re.compile(r"^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})")
_OFFSET = re.compile(r"^([+-])(\d{2}):(\d{2})$")


def exif_time(value, offset=None) -> datetime | None:
    """An EXIF date-time ("2026:07:06 09:58:12"), with its offset ("-04:00") when given; None when absent or
    malformed (all-blank or zero dates are common)."""
    if not isinstance(value, str):
        return None
    m = _EXIF_TIME.match(value.strip("\x00 "))
    if not m:
        return None
    try:
        t = datetime(*(int(g) for g in m.groups()))
    except ValueError:
        return None
    if isinstance(offset, str):
        o = _OFFSET.match(offset.strip("\x00 "))
        if o:
            sign = -1 if o.group(1) == "-" else 1
            delta = timedelta(hours=int(o.group(2)), minutes=int(o.group(3)))
            if delta <= timedelta(hours=14):
                t = t.replace(tzinfo=timezone(sign * delta))
    return t


def _degrees(dms, ref) -> float | None:
    try:
        d, m, s = (float(x) for x in dms)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if any(x != x or x < 0 for x in (d, m, s)):  # NaN (a 0/0 rational) or negative
        return None
    value = d + m / 60 + s / 3600
    if isinstance(ref, bytes):
        ref = ref.decode("ascii", "ignore")
    if isinstance(ref, str) and ref.strip("\x00 ").upper() in ("S", "W"):
        value = -value
    return value


def exif_position(gps: dict) -> tuple[float | None, float | None]:
    """(latitude, longitude) in degrees WGS84 from an EXIF GPS IFD; (None, None) when absent, out of range, or
    exactly 0, 0 (what cameras write without a fix)."""
    if not gps or GPS_LAT not in gps or GPS_LON not in gps:
        return None, None
    lat, lon = _degrees(gps.get(GPS_LAT), gps.get(GPS_LAT_REF)), _degrees(gps.get(GPS_LON), gps.get(GPS_LON_REF))
    if lat is None or lon is None or not (-90 <= lat <= 90 and -180 <= lon <= 180) or (lat == 0 and lon == 0):
        return None, None
    return round(lat, 7), round(lon, 7)


def photo_facts(data: bytes, name: str = "photo") -> PhotoFacts:
    """Format, size (as displayed, i.e. after the EXIF orientation), EXIF time and GPS position of a photo."""
    if len(data) >= 12 and data[4:8] == b"ftyp":
        from stormwater.web.filetypes import is_heic

        if is_heic(data[:16]):
            raise PhotoError(ERR_HEIC.format(name=name))
    im = _open(data, name)
    exif = im.getexif()
    sub = exif.get_ifd(ExifTags.IFD.Exif)
    taken = exif_time(sub.get(TAG_DATETIME_ORIGINAL), sub.get(TAG_OFFSET_TIME_ORIGINAL)) or exif_time(
        exif.get(TAG_DATETIME))
    lat, lon = exif_position(exif.get_ifd(ExifTags.IFD.GPSInfo))
    w, h = im.size
    if exif.get(0x0112) in (5, 6, 7, 8):  # Orientation: rotated a quarter turn
        w, h = h, w
    return PhotoFacts(format=im.format or "", width=w, height=h, taken_at=taken, latitude=lat, longitude=lon)


def resized_jpeg(data: bytes, max_px: int, *, quality: int = 82) -> bytes:
    """A JPEG no larger than ``max_px`` on its longer side, turned upright (EXIF orientation), metadata dropped."""
    im = ImageOps.exif_transpose(_open(data))
    if im.mode not in ("RGB", "L"):
        background = Image.new("RGB", im.size, (255, 255, 255))
        rgba = im.convert("RGBA")
        background.paste(rgba, mask=rgba.getchannel("A"))
        im = background
    im.thumbnail((max_px, max_px), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    im.save(out, "JPEG", quality=quality, optimize=True)
    return out.getvalue()


def thumbnail_jpeg(data: bytes) -> bytes:
    return resized_jpeg(data, THUMB_PX, quality=78)


def pdf_jpeg(data: bytes) -> bytes:
    return resized_jpeg(data, PDF_PX)
