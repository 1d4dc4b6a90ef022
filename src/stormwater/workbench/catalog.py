"""The reviewer's checklists, as data (issue 10): every paragraph of Ch. 380 § 380-11 B and C,
§ 380-12 and § 380-13 a reviewer checks, each citing its paragraph.

Transcribed from the Chapter 380 text (``shared/regulations/ch380-stormwater-management-rules.txt``),
long paragraphs shortened (``…``). Rows are ``(kind, paragraph, text)``: ``G`` is a heading whose
sub-paragraphs are the items, ``I`` an item the reviewer marks. ``tests/workbench/test_catalog.py``
reads the regulation's own enumerations and fails if any paragraph is missing here, or if a row cites a
paragraph the text does not have (rows that are not in the text are *supplements* and name their
source: the ten Massachusetts Stormwater Management Standards that § 380-11 B(1) incorporates, and the
CGP SWPPP alternative of § 380-13 A(2)).

Loaded once, at import (module constants); nothing here touches the database.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# § 380-11 B(1) incorporates the Massachusetts Stormwater Management Standards (MassDEP Stormwater
# Handbook, 310 CMR 10.05(6)(k)–(q)); the text does not list them, so they are named here with their source.
MA_SOURCE = "MassDEP Massachusetts Stormwater Handbook, Vol. 1 ch. 1 (310 CMR 10.05(6)(k)–(q))"
MA_STANDARDS = [
    ("S", "380-11 B(1) Std 1", "Standard 1 — No new untreated discharges: no new stormwater conveyance discharges "
                               "untreated stormwater directly to, or causes erosion in, wetlands or waters."),
    ("S", "380-11 B(1) Std 2", "Standard 2 — Peak rate attenuation: post-development peak discharge rates do not "
                               "exceed pre-development rates (2-, 10-year; 100-year where flooding results)."),
    ("S", "380-11 B(1) Std 3", "Standard 3 — Recharge: loss of annual recharge to groundwater eliminated or "
                               "minimized; at least the required recharge volume infiltrated."),
    ("S", "380-11 B(1) Std 4", "Standard 4 — Water quality: 80 % TSS removal of the required water quality volume; "
                               "source control and pollution prevention (long-term pollution prevention plan)."),
    ("S", "380-11 B(1) Std 5", "Standard 5 — Land uses with higher potential pollutant loads: source control, "
                               "pollution prevention and the specific BMPs the Handbook requires."),
    ("S", "380-11 B(1) Std 6", "Standard 6 — Critical areas (Zone II, IWPA, ORW, shellfish, bathing beaches, "
                               "cold-water fisheries): the BMPs the Handbook requires near or to them."),
    ("S", "380-11 B(1) Std 7", "Standard 7 — Redevelopment: Standards 2, 3 and the pretreatment and structural "
                               "BMP requirements of 4–6 met to the maximum extent practicable; others fully."),
    ("S", "380-11 B(1) Std 8", "Standard 8 — Construction-period pollution prevention and erosion and sediment "
                               "control plan."),
    ("S", "380-11 B(1) Std 9", "Standard 9 — Long-term operation and maintenance plan."),
    ("S", "380-11 B(1) Std 10", "Standard 10 — Prohibition of illicit discharges (illicit discharge compliance "
                                "statement)."),
]
SWPPP_SOURCE = "§ 380-13 A(2), second sentence; EPA 2022 Construction General Permit, Part 7"
SWPPP_ALTERNATIVE = ("S", "380-13 A(2) SWPPP", "Alternative: the stormwater pollution prevention plan prepared for "
                     "EPA under the 2022 Construction General Permit is submitted instead of items (a)–(q).")
SWPPP_PARA = "380-13 A(2) SWPPP"

STANDARDS_ROWS = [
    ('G', '380-11 B', 'General performance standards. When the proposed discharge may have an impact upon a sensitive receptor, including aquifers, streams, wetlands, and/or storm sewers, the DPW Director may require an increase in minimum standards …'),
    ('G', '380-11 B(1)', 'Massachusetts stormwater management standards. All projects subject to these rules and regulations shall comply with all Massachusetts Stormwater Management Standards (or be more stringent than those standards).'),
    *MA_STANDARDS,
    ('I', '380-11 B(2)', "Nitrogen optimization. Stormwater BMPs must be optimized for nitrogen removal. Guidance is provided in Attachment 1 to Appendix H of the 2016 MS4 Massachusetts permit. When proposed BMPs are not covered in EPA Region 1's tools, …"),
    ('I', '380-11 B(3)', 'Phosphorus optimization. Stormwater BMPs must be optimized for phosphorus removal. Guidance is provided in Attachments 2 and 3 in Appendix F of the Massachusetts MS4 Permit.'),
    ('G', '380-11 B(4)', 'Low-impact development.'),
    ('I', '380-11 B(4)(a)', 'All projects must use low-impact development (LID) site planning and design strategies unless infeasible in order to reduce stormwater runoff from both new and redevelopment projects.'),
    ('G', '380-11 B(4)(b)', 'If full compliance is not provided, an applicant must document why key steps in the process could not be met and what is proposed for mitigation. Strategies should include:'),
    ('I', '380-11 B(4)(b)[1]', "Identify, map, and preserve the site's natural features and environmentally sensitive areas such as wetlands, aquifers, native vegetation, stands of trees and trees with a trunk diameter at breast height of eight inches or more, …"),
    ('I', '380-11 B(4)(b)[2]', 'Identify, map, and protect riparian buffers by establishing a naturally vegetated buffer system along all perennial streams and other water features that encompass critical environmental features such as the 100-year floodplain, …'),
    ('I', '380-11 B(4)(b)[3]', 'Mitigate potential thermal impacts from the project, including preserving riparian buffers, specifically preservation and/or restoration of riparian trees and shrubs to provide shade, use of BMPs that make use of infiltration, …'),
    ('I', '380-11 B(4)(b)[4]', 'Prevent adverse impacts of proposed activities on habitats mapped by the Massachusetts Natural Heritage and Endangered Species Program as endangered, threatened or of special concern, estimated habitats of rare wildlife and …'),
    ('I', '380-11 B(4)(b)[5]', 'Minimize grading and clearing;'),
    ('I', '380-11 B(4)(b)[6]', 'Delineate potential building envelopes, avoiding environmental resource areas and appropriate buffers by clustering buildings and reducing building footprints;'),
    ('I', '380-11 B(4)(b)[7]', 'Develop methods to minimize impervious surfaces and protect and preserve open space. Reduce impervious surfaces wherever possible through alternative street design, such as omission of curbs and use of narrower streets, shared …'),
    ('I', '380-11 B(4)(b)[8]', 'Ensure that new fill or soils brought to site do not change the infiltration characteristics of the site;'),
    ('I', '380-11 B(4)(b)[9]', 'Ensure that all work is planned and executed so as to avoid compaction of topsoil and subsoils, including such best practices as reducing the number of trips required over area of disturbance, laying down soil protective mats for …'),
    ('I', '380-11 B(4)(b)[10]', 'Manage runoff using smaller, decentralized, low-tech stormwater management techniques to treat and recharge stormwater close to the source.'),
    ('I', '380-11 B(4)(b)[11]', 'Lengthen flow paths and maximize sheet flow.'),
    ('I', '380-11 B(4)(b)[12]', 'Use nonstructural, low-tech methods including open drainage systems, disconnection of roof runoff, and street sweeping where possible.'),
    ('I', '380-11 B(4)(b)[13]', 'Use noninvasive, native or appropriate vegetation in buffer strips and in bioretention areas. Appropriate vegetation are species adapted to site conditions, localized climate, and design intent. The following attributes should be …'),
    ('I', '380-11 B(4)(b)[14]', 'Use drought-resistant vegetation.'),
    ('G', '380-11 B(4)(b)[15]', 'Integrate the following techniques into the site design to create a hydrologically functional lot or development site, including but not limited to the following based on soil, groundwater level, and topographic conditions:'),
    ('I', '380-11 B(4)(b)[15][a]', 'Reduction of impervious surface;'),
    ('I', '380-11 B(4)(b)[15][b]', 'On-site infiltration, flow attenuation, and pollutant removal of runoff on-site to existing areas with grass, trees, and similar vegetation and through the use of open vegetated swales and natural depressions, and amended soils …'),
    ('I', '380-11 B(4)(b)[15][c]', 'Bioretention (rain gardens);'),
    ('I', '380-11 B(4)(b)[15][d]', 'Open vegetated swales and natural depressions;'),
    ('I', '380-11 B(4)(b)[15][e]', 'Use of permeable pavement;'),
    ('I', '380-11 B(4)(b)[15][f]', 'Use of roof gardens where practicable;'),
    ('I', '380-11 B(4)(b)[15][g]', 'Reuse of stormwater to replace water used for irrigation, or, with Board of Health approval, toilet flushing, or industrial processes.'),
    ('I', '380-11 B(5)', 'Management of construction materials and wastes. Construction materials and all wastes on site will be managed so as to avoid polluted flows. This includes: demolition materials, excess or discarded building or site material, …'),
    ('I', '380-11 B(6)', 'Hazardous chemicals and petroleum products. Projects involving the storage or use of hazardous chemicals or petroleum products shall incorporate handling and storage best management practices that prevent such chemicals from …'),
    ('I', '380-11 B(7)', 'Connection to MS4. If the destination for the outlet of a stormwater management facility is the MS4, the applicant must evaluate the existing capacity and condition of that system. If there are existing deficiencies or extra …'),
    ('I', '380-11 B(8)', 'Emergency overflow. All stormwater management facilities shall be designed to provide an emergency overflow system and incorporate measures to provide a nonerosive velocity to flow along its length and at any outfall.'),
    ('I', '380-11 B(9)', 'Downstream structures. The designed release rate of any stormwater structure shall be modified if any increase in flooding or stream channel erosion would result at a downstream dam, highway, structure, or normal point of …'),
]

CONSTRUCTION_ROWS = [
    ('G', '380-11 C', 'Erosion and sediment control design requirements.'),
    ('I', '380-11 C(1)', 'Promote erosion and sediment control by using measures that are appropriate to the conditions of the site. Prevention of erosion is preferred over sedimentation control. Note that where requirements here differ from any …'),
    ('G', '380-11 C(2)', 'During planning:'),
    ('I', '380-11 C(2)(a)', 'Minimize the amount of disturbed area and protect natural resources.'),
    ('I', '380-11 C(2)(b)', 'Avoid sensitive areas, steep slopes, and highly erodible soils to the maximum extent possible when developing site plans.'),
    ('I', '380-11 C(2)(c)', 'Maximize groundwater recharge.'),
    ('I', '380-11 C(2)(d)', 'Sequence activities to minimize simultaneous areas of disturbance.'),
    ('I', '380-11 C(2)(e)', 'Identify potential problem areas before the site plan is finalized and approved.'),
    ('I', '380-11 C(2)(f)', 'Divert uncontaminated water around disturbed areas.'),
    ('I', '380-11 C(2)(g)', 'Plan to use sediment barriers along contour lines, with a focus on areas where short-circuiting (i.e., flow around the barrier) may occur.'),
    ('I', '380-11 C(2)(h)', "Use berms at the top of a steep slopes to divert runoff away from the slope's edge."),
    ('I', '380-11 C(2)(i)', 'Design trapezoidal or parabolic vegetated drainage channels, not triangular.'),
    ('I', '380-11 C(2)(j)', 'Use vegetated channels with rip rap check dams, instead of impervious pavement or concrete, to reduce the water velocity of the conveyance system.'),
    ('I', '380-11 C(2)(k)', 'Design a check dam or sediment forebay with level spreader at the exit of outfalls to reduce water velocity of the discharge and collect sediment.'),
    ('I', '380-11 C(2)(l)', 'Use turf reinforcement matting to stabilize vegetated channels, encourage vegetation establishment, and withstand flow velocities without scouring the base of the channel.'),
    ('I', '380-11 C(2)(m)', 'Plan open channels to follow land contours so natural drainage is not disrupted.'),
    ('I', '380-11 C(2)(n)', 'Use organic matting for temporary slope stabilization and synthetic matting for permanent stabilization.'),
    ('I', '380-11 C(2)(o)', 'Provide a stable channel, flume, or slope drain where it is necessary to carry water down slopes.'),
    ('I', '380-11 C(2)(p)', 'Protect and manage on- and off-site materials storage areas (overburden and stockpiles of dirt, borrow areas, or other areas used solely by the permitted project are considered a part of the project).'),
    ('G', '380-11 C(3)', 'During construction:'),
    ('I', '380-11 C(3)(a)', 'Institute interim and permanent stabilization measures, which shall be instituted on a disturbed area as soon as practicable and no more than seven days after construction activity has temporarily or permanently ceased on that …'),
    ('I', '380-11 C(3)(b)', 'Protect slopes on the construction site.'),
    ('I', '380-11 C(3)(c)', 'Protect all storm drain inlets and armor all newly constructed outlets.'),
    ('I', '380-11 C(3)(d)', "Use perimeter controls that provide protection along the site's edge before sediment reaches roadway, storm drains, or adjacent properties."),
    ('I', '380-11 C(3)(e)', 'Stabilize construction site entrances and exits to prevent off-site tracking of sediments.'),
    ('I', '380-11 C(3)(f)', 'Inspect stormwater controls at regular intervals and especially following any storm.'),
    ('I', '380-11 C(3)(g)', 'Clean and sweep up any debris accidentally tracked, dumped or spilled off-site.'),
]

SWMP_ROWS = [
    ('G', '380-12 A', 'Plan contents.'),
    ('I', '380-12 A(1)', 'A stormwater management plan submitted with the permit application shall contain sufficient information for the DPW Director to evaluate the environmental impact, effectiveness, and acceptability of the site planning process and …'),
    ('I', '380-12 A(2)', 'The DPW Director may require and alter as they see fit the components of the stormwater management plan. All components of the stormwater management plan shall be prepared and submitted with the stamp and signature of a …'),
    ('G', '380-12 A(3)', 'The stormwater management plan shall be designed to meet the standards described in §\xa0380-11. The minimum information submitted for support of a stormwater management plan shall be as follows:'),
    ('I', '380-12 A(3)(a)', 'Names, addresses and phone numbers of the applicant, owner and preparer;'),
    ('I', '380-12 A(3)(b)', 'A locus map, using a portion of the relevant USGS Quadrangle Map;'),
    ('G', '380-12 A(3)(c)', 'Existing conditions map showing:'),
    ('I', '380-12 A(3)(c)[1]', 'Lot lines and lines of existing streets;'),
    ('I', '380-12 A(3)(c)[2]', 'The existing zoning and land use at the site;'),
    ('I', '380-12 A(3)(c)[3]', 'The existing site hydrology and topography at two-foot intervals and the location of datum;'),
    ('I', '380-12 A(3)(c)[4]', 'A description and delineation of existing stormwater conveyances, impoundments, and wetlands on or adjacent to the site or into which stormwater flows;'),
    ('I', '380-12 A(3)(c)[5]', 'A delineation of 100- and 500-year flood plains, if applicable;'),
    ('I', '380-12 A(3)(c)[6]', 'Estimated seasonal high groundwater elevation (November to April) in areas to be used for stormwater retention, detention, or infiltration;'),
    ('I', '380-12 A(3)(c)[7]', 'Vegetation including tree lines, canopy layer, shrub layer and ground cover, and trees with a trunk diameter at breast height of eight inches or more, noting specimen trees and forest communities;'),
    ('I', '380-12 A(3)(c)[8]', 'Habitats mapped by the Massachusetts Natural Heritage & Endangered Species Program as endangered, threatened, or of special concern, estimated habitats of rare wildlife and certified vernal pools, and priority habitats of rare …'),
    ('G', '380-12 A(3)(d)', 'Existing conditions and proposed land use map showing:'),
    ('I', '380-12 A(3)(d)[1]', 'The location(s) of existing and proposed easements;'),
    ('I', '380-12 A(3)(d)[2]', 'The location of existing and proposed buildings and/or structures, including materials and approximate height;'),
    ('I', '380-12 A(3)(d)[3]', 'The location of existing and proposed utilities, roadways; driveways, and parking areas;'),
    ('I', '380-12 A(3)(d)[4]', 'The proposed limits of land disturbance;'),
    ('I', '380-12 A(3)(d)[5]', 'Estimate of the total area expected to be disturbed by excavation, grading, or other construction activities;'),
    ('G', '380-12 A(3)(e)', 'Stormwater management design plan(s) and details showing:'),
    ('I', '380-12 A(3)(e)[1]', "The site's existing and proposed topography with contours at two-foot intervals;"),
    ('I', '380-12 A(3)(e)[2]', 'The existing and proposed vegetation and ground surfaces with runoff coefficient for each;'),
    ('I', '380-12 A(3)(e)[3]', 'Soils information from test pits or borings performed at the location of proposed stormwater management facilities, including soil descriptions, depth to season high groundwater, depth to bedrock, and infiltration rates. Soils …'),
    ('I', '380-12 A(3)(e)[4]', 'A drainage area map showing pre- and post-construction watershed boundaries, drainage area and stormwater flow paths;'),
    ('G', '380-12 A(3)(e)[5]', 'A description and drawings of all components of the proposed drainage system, including:'),
    ('I', '380-12 A(3)(e)[5][a]', 'Locations, cross sections, and profiles of all brooks, streams, drainage swales and their method of stabilization;'),
    ('I', '380-12 A(3)(e)[5][b]', 'Drainage patterns and approximate slopes anticipated after major grading activities;'),
    ('I', '380-12 A(3)(e)[5][c]', 'All measures for the detention, retention or infiltration of water;'),
    ('I', '380-12 A(3)(e)[5][d]', 'All measures for the protection of water quality;'),
    ('I', '380-12 A(3)(e)[5][e]', 'The structural details for all components of the proposed drainage systems and stormwater management facilities;'),
    ('I', '380-12 A(3)(e)[5][f]', 'Notes on drawings specifying materials to be used, construction specifications, and typicals;'),
    ('I', '380-12 A(3)(e)[5][g]', 'Expected hydrology with supporting calculations;'),
    ('I', '380-12 A(3)(e)[5][h]', 'Proposed improvements including location of buildings, utilities, or other structures, impervious surfaces, and drainage facilities, if applicable;'),
    ('I', '380-12 A(3)(e)[5][i]', 'Any other information requested by the DPW Director.'),
    ('I', '380-12 A(3)(f)', 'A landscaping plan, showing and describing existing and proposed vegetation and the woody and herbaceous vegetative stabilization and management techniques to be used within and adjacent to the stormwater practices.'),
    ('G', '380-12 A(3)(g)', 'Hydrologic and hydraulic design calculations for the predevelopment and post-development conditions. Calculations shall include:'),
    ('I', '380-12 A(3)(g)[1]', "Hydrologic soils group (HSG) information, soil type, and relevant characteristics for the purpose of modeling the project's runoff, using NRCS soils information;"),
    ('I', '380-12 A(3)(g)[2]', 'Description of design storm frequency, intensity, and duration;'),
    ('I', '380-12 A(3)(g)[3]', 'Time of concentration;'),
    ('I', '380-12 A(3)(g)[4]', 'Runoff curve number (RCN) based on land use and soil hydrologic group;'),
    ('I', '380-12 A(3)(g)[5]', 'Peak runoff rates and total runoff volumes for each watershed area for the two-year, ten-year and 100-year, twenty-four-hour storms;'),
    ('I', '380-12 A(3)(g)[6]', 'Information on construction measures used to maintain the infiltration capacity of the soil where any kind of infiltration is proposed;'),
    ('I', '380-12 A(3)(g)[7]', 'Infiltration rates where applicable;'),
    ('I', '380-12 A(3)(g)[8]', 'Groundwater recharge analysis and BMP drawdown (time to empty);'),
    ('I', '380-12 A(3)(g)[9]', 'Culvert capacities;'),
    ('I', '380-12 A(3)(g)[10]', 'Flow velocities;'),
    ('I', '380-12 A(3)(g)[11]', 'Data on the increase in rate and volume of runoff for the specified design storms;'),
    ('I', '380-12 A(3)(g)[12]', 'Data showing how project stormwater BMPs are optimized for Nitrogen removal, using estimated Nitrogen load from the proposed project and the load reduction achieved through proposed BMPs (see performance standards in §\xa0380-11 …'),
    ('I', '380-12 A(3)(g)[13]', 'Data showing how project stormwater BMPs are optimized for phosphorus removal, using estimated Phosphorus load from the proposed project and the load reduction achieved through proposed BMPs (see performance standards in §\xa0380-11 …'),
    ('G', '380-12 A(3)(g)[14]', 'Data and documentation of sources for all computation methods and field test results showing how the project will meet stormwater runoff water quality and/or retention requirements of new development or redevelopment specified in …'),
    ('I', '380-12 A(3)(g)[14][a]', 'Water quality design calculations showing the estimated total suspended sediment (TSS) load from the proposed project and the load reduction achieved through proposed BMPs; and'),
    ('I', '380-12 A(3)(g)[14][b]', 'Water quality design calculations showing the estimated phosphorus load from the proposed project and the load reduction achieved through proposed BMPs (Attachments 2 and 3 in Appendix F of the Massachusetts MS4 Permit or as …'),
    ('I', '380-12 A(3)(g)[14][c]', 'Calculations showing runoff volume from the total post-construction impervious surface area and retention of required volume; or'),
    ('I', '380-12 A(3)(g)[14][d]', 'Calculations showing how will meet required standards through a combination of water quality treatment and retention;'),
    ('I', '380-12 A(3)(g)[15]', 'Documentation of sources for all computation methods and field test results;'),
    ('I', '380-12 A(3)(g)[16]', 'Post-development downstream analysis, if deemed necessary by the DPW Director. The downstream analysis will evaluate the hydrologic impacts of the project downstream of the project to a location where the watershed to project …'),
]

ESCP_ROWS = [
    ('G', '380-13 A', 'Plan contents.'),
    ('I', '380-13 A(1)', 'The erosion and sediment control plan shall contain sufficient information to describe the nature and purpose of the proposed development, pertinent conditions of the site and the adjacent areas, and proposed erosion and …'),
    ('G', '380-13 A(2)', 'The plan shall contain the following information indicated below. (As an alternative an applicant may submit the stormwater pollution prevention plan prepared for EPA under the 2022 Construction General Permit).'),
    SWPPP_ALTERNATIVE,
    ('I', '380-13 A(2)(a)', 'Names, addresses, and telephone numbers of the owner, applicant, and person(s) or firm(s) preparing the plan;'),
    ('I', '380-13 A(2)(b)', 'Title, date, North arrow, names of abutters, scale, legend, and locus map;'),
    ('G', '380-13 A(2)(c)', 'Location and description of natural features including:'),
    ('I', '380-13 A(2)(c)[1]', 'Watercourses and water bodies, wetland resource areas and all floodplain information, including the 100-year flood elevation based upon the most recent Flood Insurance Rate Map, or as calculated by a professional engineer for …'),
    ('I', '380-13 A(2)(c)[2]', 'Existing vegetation including tree lines, canopy layer, shrub layer and ground cover, and trees with a trunk diameter at breast height of eight inches or more, noting specimen trees and forest communities;'),
    ('I', '380-13 A(2)(c)[3]', 'Habitats mapped by the Massachusetts Natural Heritage & Endangered Species Program as endangered, threatened or of special concern, estimated habitats of rare wildlife and certified vernal pools, and priority habitats of rare …'),
    ('I', '380-13 A(2)(d)', 'Lines of existing abutting streets showing drainage and driveway locations and curb cuts;'),
    ('I', '380-13 A(2)(e)', 'Existing soils, volume and nature of imported soil materials;'),
    ('I', '380-13 A(2)(f)', 'Topographical features including existing and proposed contours at intervals no greater than two feet with spot elevations provided when needed;'),
    ('I', '380-13 A(2)(g)', 'Surveyed property lines showing distances and monument locations, all existing and proposed easements, rights-of-way, and other encumbrances, the size of the entire parcel, and the delineation and number of square feet of the …'),
    ('I', '380-13 A(2)(h)', 'Drainage patterns and approximate slopes anticipated after major grading activities (construction phase grading plans);'),
    ('I', '380-13 A(2)(i)', 'Stormwater runoff calculations that show runoff rates for when soils will be exposed, providing a clear understanding of erosion and sediment control measures needed during the construction phase;'),
    ('I', '380-13 A(2)(j)', 'Location and details of erosion and sediment control measures with a narrative of the construction sequence/phasing of the project, including timing, schedules, and sequence of development including clearing, stripping, rough …'),
    ('I', '380-13 A(2)(k)', 'An operation and maintenance schedule for structural and nonstructural measures, interim grading, and material stockpiling areas for the period of construction;'),
    ('I', '380-13 A(2)(l)', 'Path and mechanism to divert uncontaminated water around disturbed areas, to the maximum extent practicable;'),
    ('I', '380-13 A(2)(m)', 'Location and description of and implementation schedule for temporary and permanent seeding, vegetative controls, and other stabilization measures;'),
    ('I', '380-13 A(2)(n)', 'Description of construction and waste materials expected to be stored on-site. The plan shall include a description of controls to reduce pollutants from these materials, including storage practices to minimize exposure of the …'),
    ('I', '380-13 A(2)(o)', 'A description of provisions for phasing the project where one acre of area or greater is to be altered or disturbed;'),
    ('I', '380-13 A(2)(p)', 'Plans must be stamped and certified by a qualified professional engineer registered in Massachusetts;'),
    ('I', '380-13 A(2)(q)', 'Such other information as is required by the DPW Director.'),
]


# Items whose numbers the engineering review (stormwater.review) computes: the key prefixes of the
# review's standards rows (review/engine.py) that show what was found for the item.
REVIEW_LINKS: dict[str, tuple[str, ...]] = {
    # The ten Massachusetts Standards: the review's computed rows and the applicant's checklist
    # statements (review/massdep.py, rows "ma_<item>").
    "380-11 B(1) Std 1": ("ma_std1_",),
    "380-11 B(1) Std 2": ("peak_", "rainfall_location", "rainfall_distribution"),
    "380-11 B(1) Std 3": ("recharge", "drawdown_", "ma_std3_"),
    "380-11 B(1) Std 4": ("ma_std4_", "removal_TSS", "retention"),
    "380-11 B(1) Std 5": ("ma_std5_",),
    "380-11 B(1) Std 6": ("ma_std6_",),
    "380-11 B(1) Std 7": ("ma_std7_",),
    "380-11 B(1) Std 8": ("ma_std8_",),
    "380-11 B(1) Std 9": ("ma_std9_",),
    "380-11 B(1) Std 10": ("ma_std10_",),
    "380-11 B(4)(a)": ("ma_lid_measures",),
    "380-12 A(2)": ("ma_pe_certification",),
    "380-11 B(2)": ("removal_TN",),
    "380-11 B(3)": ("removal_TP",),
    "380-11 B(8)": ("overflow_",),
    "380-12 A(3)(e)[5][g]": ("peak_", "volume_"),
    "380-12 A(3)(g)[5]": ("peak_", "volume_"),
    "380-12 A(3)(g)[8]": ("recharge", "drawdown_"),
    "380-12 A(3)(g)[11]": ("peak_", "volume_"),
    "380-12 A(3)(g)[12]": ("removal_TN",),
    "380-12 A(3)(g)[13]": ("removal_TP",),
    "380-12 A(3)(g)[14][a]": ("removal_TSS",),
    "380-12 A(3)(g)[14][b]": ("removal_TP",),
    "380-12 A(3)(g)[14][c]": ("retention",),
    "380-12 A(3)(g)[14][d]": ("retention", "removal_TSS", "removal_TP"),
}

# § 380-11 B(4)(b): where an LID strategy is not met the applicant documents why, and the mitigation.
LID_PREFIX = "380-11 B(4)(b)["


@dataclass(frozen=True)
class Checklist:
    key: str
    title: str
    citation: str
    rows: tuple = field(repr=False)


@dataclass(frozen=True)
class Entry:
    checklist: str
    kind: str          # "group" | "item"
    para: str          # "380-12 A(3)(c)[1]"
    text: str
    depth: int
    source: str = ""   # for supplements: where the item comes from (it is not an enumerated paragraph)
    review_keys: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """URL- and form-safe id: '380-12 A(3)(c)[1]' → '380-12-A-3-c-1'."""
        return re.sub(r"[()\[\] ]+", "-", self.para).strip("-")

    @property
    def cite(self) -> str:
        return "§ " + self.para

    @property
    def is_item(self) -> bool:
        return self.kind == "item"

    @property
    def supplement(self) -> bool:
        return bool(self.source)

    @property
    def lid(self) -> bool:
        return self.para.startswith(LID_PREFIX)


CHECKLISTS = (
    Checklist("swmp", "Stormwater management plan", "§ 380-12 A", tuple(SWMP_ROWS)),
    Checklist("escp", "Erosion and sediment control plan", "§ 380-13 A", tuple(ESCP_ROWS)),
    Checklist("construction", "Erosion and sediment control design requirements", "§ 380-11 C",
              tuple(CONSTRUCTION_ROWS)),
    Checklist("standards", "General performance standards", "§ 380-11 B", tuple(STANDARDS_ROWS)),
)


def _depth(para: str) -> int:
    label = para.split(" ", 1)[1]
    return label.count("(") + label.count("[") + (1 if " Std " in para or para.endswith("SWPPP") else 0)


def _build() -> tuple[Entry, ...]:
    out = []
    for cl in CHECKLISTS:
        for kind, para, text in cl.rows:
            source = MA_SOURCE if " Std " in para else SWPPP_SOURCE if para == SWPPP_PARA else ""
            out.append(Entry(checklist=cl.key, kind="group" if kind == "G" else "item", para=para, text=text,
                             depth=_depth(para), source=source, review_keys=REVIEW_LINKS.get(para, ())))
    return tuple(out)


ENTRIES: tuple[Entry, ...] = _build()
ITEMS: tuple[Entry, ...] = tuple(e for e in ENTRIES if e.is_item)
BY_KEY: dict[str, Entry] = {e.key: e for e in ENTRIES}
BY_PARA: dict[str, Entry] = {e.para: e for e in ENTRIES}
CHECKLIST_BY_KEY: dict[str, Checklist] = {c.key: c for c in CHECKLISTS}
assert len(BY_KEY) == len(ENTRIES) == len(BY_PARA), "duplicate paragraph in the checklist data"


def entries_of(checklist: str) -> list[Entry]:
    return [e for e in ENTRIES if e.checklist == checklist]


def items_under(para: str) -> list[Entry]:
    """The items below a heading (e.g. every item of § 380-13 A(2), for the SWPPP alternative)."""
    return [e for e in ITEMS if e.para != para and e.para.startswith(para) and e.para[len(para)] in "(["]


# The Town's low-impact development design checklist for the pre-application meeting (§ 380-10 A).
# The Town's own form is not in the text; its items here are the LID strategies of § 380-11 B(4)(b),
# which the checklist is meant to encourage, filled in with the applicant before design starts.
LID_DESIGN_CHECKLIST: tuple[Entry, ...] = tuple(e for e in ITEMS if e.lid)
