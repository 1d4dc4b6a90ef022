"""Photos for tests: JPEGs with the EXIF a phone camera writes (time, offset, GPS), made by Pillow."""
from __future__ import annotations

import io

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import ExifTags, Image


def jpeg_bytes(*, taken="2026:07:06 09:58:12", offset="-04:00", lat=(42.0, 3.0, 1.8), lat_ref="N",
               lon=(72.0, 34.0, 57.5), lon_ref="W", size=(640, 480), color=(40, 120, 70), orientation=None) -> bytes:
    img = Image.new("RGB", size, color)
    for x in range(0, size[0], 40):  # some structure, so the JPEG is not one flat colour
        img.paste((250, 250, 250), (x, 0, x + 4, size[1]))
    exif = Image.Exif()
    exif[0x0110] = "Test camera"
    if orientation:
        exif[0x0112] = orientation
    sub = exif.get_ifd(ExifTags.IFD.Exif)
    if taken:
        sub[0x9003] = taken
    if offset:
        sub[0x9011] = offset
    if lat is not None:
        gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
        gps[1], gps[2], gps[3], gps[4] = lat_ref, lat, lon_ref, lon
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif, quality=85)
    return buf.getvalue()


def png_bytes(size=(300, 100)) -> bytes:
    img = Image.new("RGBA", size, (255, 255, 255, 0))
    for x in range(10, size[0] - 10):
        img.putpixel((x, size[1] // 2 + (x % 7) - 3), (0, 0, 0, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def upload(name: str, data: bytes, ctype: str = "image/jpeg") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=ctype)
