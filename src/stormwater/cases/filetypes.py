"""The file types a case accepts as an upload: the allow-list is the toolkit's (``stormwater.web.filetypes``, where
``web.files.document_response`` also reads it); its names stay importable from here."""
from __future__ import annotations

from stormwater.web.filetypes import (  # noqa: F401
    ALL_TYPES, DOCUMENT_TYPES, DWG, HEAD_BYTES, HEIF_BRANDS, JPEG, JSON_DATA, MAX_IMAGE_PIXELS, PDF, PFDS_CSV,
    PHOTO_JPEG, PHOTO_PNG, PHOTO_TYPES, PNG, SWMM_INP, SWMM_SECTIONS, YAML_DATA, FileType, extension, is_heic, magic,
    names_agree, pillow_image, type_by_content, type_of)
