"""Constants shared by the review tests (a module of its own: ``conftest`` is ambiguous across test folders)."""
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"

# A TSS table for tests: made-up points, loaded as a DPW engineer would load the official one.
TEST_TSS_CSV = """# test table (not official numbers)
bmp,pollutant,infiltration_rate_in_hr,storage_depth_in,removal
infiltration_trench,TSS,,0.1,60
infiltration_trench,TSS,,2.0,95
extended_dry_detention_basin,TSS,,0.1,30
extended_dry_detention_basin,TSS,,2.0,60
"""
