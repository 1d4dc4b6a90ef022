"""Engineering core: hydrology and water quality for the Chapter 380 stormwater review.

Pure Python (no Django, no imports of the domain apps): plain floats with units in their names,
``ValueError`` outside a method's valid range, never extrapolation. One module per subject:

- :mod:`.rainfall` -- NOAA Atlas 14 PFDS import, "NOAA plus" design depths, NRCS 24-h distributions
- :mod:`.runoff` -- TR-55 chapter 2: runoff equation, curve numbers
- :mod:`.tc` -- TR-55 chapter 3: time of concentration and travel time
- :mod:`.peak` -- TR-55 chapter 4: graphical peak discharge
- :mod:`.tabular` -- TR-55 chapter 5: tabular hydrograph method (Exhibit 5)
- :mod:`.hydrograph` -- NRCS dimensionless unit hydrograph convolution (NEH 630 ch. 16)
- :mod:`.routing` -- storage-indication (modified Puls) routing; TR-55 chapter 6 storage estimate
- :mod:`.water_quality` -- Ch. 380 § 380-11 retention and removal standards, BMP performance tables
- :mod:`.calc` -- the JSON calculator contract (``stormwater calc runoff|retention|noaa-plus|peak|bmp``)

Reference tables are data files in ``data/``, each with its source in a header comment.
"""
