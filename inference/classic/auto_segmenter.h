#pragma once
// The classic engine's automatic segmentation, on the CPU with no model:
//   CT: body, left lung, right lung, airways (trachea and main bronchi), skeleton.
//   MR (or anything that is not CT): body / foreground.
// Label ids follow the default VISTA-3D table where it has the class (airway 132, bone 21); the classes it lacks get
// ids above VISTA's range: body 200, left lung 201, right lung 202.
//
// CT (Hounsfield units; a CT is recognised by air: at least 1% of voxels below -500 and the image's minimum below
// -900):
// - body: tissue above -500 HU; eroded by `tableGapMm` so the patient table and blankets come loose, the largest
//   component kept and dilated back within the tissue; then every axial slice's holes filled (lungs and bowel gas are
//   inside the body).
// - airways: region growing from the trachea (the round air column near the body's centre in the top axial slices
//   that have body), with the threshold raised from -990 HU in steps while the volume does not jump (a jump means
//   the growth leaked into the lungs).
// - lungs: air below -400 HU inside the body, minus the airways, components larger than `minLungMl`; joined lungs
//   are split by erosion into two cores; left and right by their centroid's LPS x (patient left is +x).
// - skeleton: grown from cortex (above `corticalHu`) along paths above `boneHu` at most `boneReachMm` long, a step
//   into a voxel at or below the shell threshold counting `trabecularCost` times its length (the shell threshold is
//   `shellPerTissue` times the upper quartile of the body's 0-300 HU tissue, at least `shellHu`: 150 HU without
//   contrast, about 300 on a portal-venous CT); slice holes up to 25 cm^2 filled (marrow); pieces below `minBoneMl`
//   or with less than `minCorticalMl` of cortex dropped. Enhanced organs and vessels pass `boneHu` and touch the
//   ribs and spine, so they are reached only within boneReachMm / trabecularCost (10 mm) of the cortex; a vertebral
//   body's trabecular interior, no brighter than an enhanced liver, comes in by its enclosure.
// MR: Otsu's threshold of the intensity histogram, the largest component, holes filled per slice and in 3D.

#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "core/progress.h"
#include "core/scalar_image.h"
#include "core/volume.h"

namespace delineate::inference::classic {

inline constexpr core::Label kBodyLabel = 200;
inline constexpr core::Label kLeftLungLabel = 201;
inline constexpr core::Label kRightLungLabel = 202;
inline constexpr core::Label kAirwayLabel = 132;  // VISTA-3D "airway"
inline constexpr core::Label kBoneLabel = 21;     // VISTA-3D "bone"

struct AutoOptions {
  double bodyHu = -500;
  double tableGapMm = 5;
  double lungHu = -400;
  double minLungMl = 20;
  double boneHu = 100;
  double corticalHu = 400;
  double minCorticalMl = 0.1;
  double shellHu = 150;
  double shellPerTissue = 2.5;
  double boneReachMm = 400;
  double trabecularCost = 40;
  double minBoneMl = 1;
};

struct AutoResult {
  std::vector<core::Label> voxels;  // on the image grid, x fastest
  std::vector<core::Label> produced;
  bool ct = false;
};

// True when the image looks like CT in Hounsfield units (see above).
bool looksLikeCt(core::ImageView image);

// The classes this segmenter produces, with names and colours (the VISTA-3D colours where it has the class).
core::LabelTable autoLabelTable();

// Segments `classes` (empty = all it can for the modality). Later classes overwrite earlier ones in this order: body,
// lungs, airways, skeleton. Cancelled and OutOfMemory errors as the engine interface describes.
// Reads the image in its stored type (no float32 copy).
core::Result<AutoResult> segmentAutomatically(core::ImageView image, const std::vector<core::Label>& classes,
                                              core::ProgressSink* progress, const AutoOptions& options = {});

}  // namespace delineate::inference::classic
