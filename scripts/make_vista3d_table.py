#!/usr/bin/env python3
"""Generate resources/labels/vista3d.csv: the VISTA-3D label dictionary as a 3D Slicer CSV colour table with
DICOM/SNOMED terminology.

Inputs
  * VISTA-3D label dictionary (Project-MONAI model-zoo, models/vista3d): JSON with a "classes" list of
    {"index", "name"} (ids 1..132; background is left out).
  * TotalSegmentator's SNOMED mapping CSV (Apache-2.0): Structure name -> DICOM codes and DicomRGBColor.

Names are matched after normalisation (lower case, split on spaces and underscores, words sorted), so VISTA's
"right kidney" meets TotalSegmentator's "kidney_right"; ALIASES covers the few synonyms that normalisation cannot.
Matched labels get TotalSegmentator's codes and colour. Classes TotalSegmentator lacks (tumours, lung, bone) get
codes composed from the DICOM master terminology (COMPOSED). Labels without a TotalSegmentator colour get the
deterministic colour Delineate gives any label without one (core::LabelTable::defaultColor, a golden-angle hue walk).

The output is written in the layout io::writeSlicerCsvString produces, so reading and rewriting it is lossless.
Standard library only. Run from anywhere:
    python3 scripts/make_vista3d_table.py [--vista labels.json] [--mapping mapping.csv] [--output out.csv]
"""

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DEFAULT_VISTA = SHARED / "reference" / "vista3d" / "labels.json"
DEFAULT_MAPPING = SHARED / "data" / "labels" / "totalsegmentator_snomed_mapping.csv"
DEFAULT_TERMINOLOGY = SHARED / "data" / "labels" / "slicer" / "SegmentationCategoryTypeModifier-DICOM-Master.json"
DEFAULT_OUTPUT = REPO / "resources" / "labels" / "vista3d.csv"

# VISTA-3D name -> TotalSegmentator name, for synonyms that differ in words rather than in order.
ALIASES = {
    "bladder": "urinary_bladder",
    "hepatic vessel": "liver_vessels",
    "hepatic tumor": "liver_tumor",
    "airway": "lung_trachea_bronchia",
}

# VISTA-3D classes TotalSegmentator has no entry for, described as (category, type, anatomic region) by code
# meaning and resolved against the DICOM master terminology (Slicer/dcmqi), so every code comes from that file.
# Left out on purpose: "prostate or uterus" (one label, two organs) and "vertebrae L6" (a transitional vertebra
# with no concept there).
COMPOSED = {
    "lung": ("Anatomical Structure", "Lung", None),
    "rectum": ("Anatomical Structure", "Rectum", None),
    "bone": ("Tissue", "Bone", None),
    "lung tumor": ("Morphologically Altered Structure", "Neoplasm", "Lung"),
    "pancreatic tumor": ("Morphologically Altered Structure", "Neoplasm", "Pancreas"),
    "colon cancer primaries": ("Morphologically Altered Structure", "Neoplasm", "Colon"),
    "bone lesion": ("Morphologically Altered Structure", "Mass", "Bone"),
    "kidney mass": ("Morphologically Altered Structure", "Mass", "Kidney"),
}

SEQUENCES = [  # (Slicer CSV column prefix, TotalSegmentator column prefix)
    ("Category", "SegmentedPropertyCategoryCodeSequence"),
    ("Type", "SegmentedPropertyTypeCodeSequence"),
    ("TypeModifier", "SegmentedPropertyTypeModifierCodeSequence"),
    ("Region", "AnatomicRegionSequence"),
    ("RegionModifier", "AnatomicRegionModifierSequence"),
]
PARTS = [("CodingScheme", "CodingSchemeDesignator"), ("CodeValue", "CodeValue"), ("CodeMeaning", "CodeMeaning")]


def normalize(name):
    return " ".join(sorted(w for w in name.lower().replace("_", " ").split() if w))


def default_color(label):
    """Same formula as core::LabelTable::defaultColor (core/label_table.cpp)."""
    hue = math.fmod(label * 137.50776405, 360.0) / 60.0
    sat = 0.65 if label % 2 == 0 else 0.85
    val = 0.80 if label % 3 == 0 else 0.95
    c = val * sat
    x = c * (1 - abs(math.fmod(hue, 2.0) - 1))
    m = val - c
    sector = int(hue)
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c)][sector] if sector < 5 else (c, 0, x)

    def to8(v):
        # C++ std::lround rounds halves away from zero; Python's round() would round them to even.
        return int(math.floor((v + m) * 255.0 + 0.5))

    return to8(r), to8(g), to8(b)


def load_vista(path):
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    classes = sorted(data["classes"], key=lambda c: c["index"])
    ids = [c["index"] for c in classes]
    if ids != list(range(1, 133)):
        sys.exit(f"{path}: expected class indices 1..132, found {ids[:3]}..{ids[-3:]} ({len(ids)} classes)")
    return [(c["index"], c["name"]) for c in classes]


def load_mapping(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by_name = {}
    for row in rows:
        key = normalize(row["Structure"])
        if key in by_name:
            sys.exit(f"{path}: two structures normalise to '{key}'")
        by_name[key] = row
    return by_name


def load_terminology(path):
    """(category meaning, type meaning) -> (category code, type code); codes are (scheme, value, meaning)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    found = {}
    for category in data["SegmentationCodes"]["Category"]:
        cat = (category["CodingSchemeDesignator"], category["CodeValue"], category["CodeMeaning"])
        for t in category.get("Type", []):
            found.setdefault((cat[2], t["CodeMeaning"]), (cat, (t["CodingSchemeDesignator"], t["CodeValue"],
                                                               t["CodeMeaning"])))
    return found


def composed_codes(name, terminology, where):
    category, type_meaning, region_meaning = COMPOSED[name]
    key = (category, type_meaning)
    if key not in terminology:
        sys.exit(f"{where}: no '{type_meaning}' under '{category}'")
    cat, typ = terminology[key]
    region = ("", "", "")
    if region_meaning is not None:
        hits = [t for (c, m), (_, t) in terminology.items() if m == region_meaning and c in ("Anatomical Structure", "Tissue")]
        if not hits:
            sys.exit(f"{where}: no anatomical structure '{region_meaning}'")
        region = hits[0]
    empty = ("", "", "")
    return [*cat, *typ, *empty, *region, *empty]


def parse_rgb(text, where):
    parts = [int(p) for p in text.split(",")]
    if len(parts) != 3 or not all(0 <= p <= 255 for p in parts):
        sys.exit(f"{where}: bad DicomRGBColor '{text}'")
    return tuple(parts)


def build_rows(vista, mapping, terminology, terminology_path):
    header = ["LabelValue", "Name", "Color_R", "Color_G", "Color_B", "Color_A"]
    header += [f"{prefix}_{part}" for prefix, _ in SEQUENCES for part, _ in PARTS]
    rows, unmatched = [], []
    for label, name in vista:
        source = mapping.get(normalize(ALIASES.get(name, name)))
        codes = [""] * (len(SEQUENCES) * len(PARTS))
        if source is not None:
            rgb = parse_rgb(source["DicomRGBColor"], source["Structure"]) if source["DicomRGBColor"] else None
            codes = [source[f"{ts_prefix}.{ts_part}"].strip() for _, ts_prefix in SEQUENCES for _, ts_part in PARTS]
        elif name in COMPOSED:
            rgb = None
            codes = composed_codes(name, terminology, terminology_path)
        else:
            rgb = None
            unmatched.append(f"{label} {name}")
        if rgb is None or rgb == (0, 0, 0):
            rgb = default_color(label)
        rows.append([str(label), name, *map(str, rgb), "255", *codes])
    return header, rows, unmatched


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vista", default=str(DEFAULT_VISTA), help="VISTA-3D labels.json")
    parser.add_argument("--mapping", default=str(DEFAULT_MAPPING), help="TotalSegmentator SNOMED mapping CSV")
    parser.add_argument("--terminology", default=str(DEFAULT_TERMINOLOGY), help="DICOM master terminology JSON")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="output Slicer CSV colour table")
    args = parser.parse_args()

    header, rows, unmatched = build_rows(load_vista(args.vista), load_mapping(args.mapping),
                                         load_terminology(args.terminology), args.terminology)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    tmp.replace(out)

    print(f"wrote {out}: {len(rows)} labels, {len(rows) - len(unmatched)} with SNOMED codes")
    if unmatched:
        print("without codes: " + ", ".join(unmatched))


if __name__ == "__main__":
    main()
