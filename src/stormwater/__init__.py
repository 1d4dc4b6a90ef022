"""Town of Longmeadow DPW Stormwater Division: stormwater utility and land-disturbance permits."""
__version__ = "0.1.0"
