// Per-class quality of the classic engine's automatic CT segmentation (issue 23, item 4):
//   bench_auto_quality IMAGE [TOTALSEG_LABELS] [--ppm FOLDER]
// runs inference::classic::segmentAutomatically on IMAGE (a file; convert a DICOM series with delineate-cli convert)
// and prints, per class, its volume; with TotalSegmentator's label map (the `total` ids, same grid) also the
// reference volume, Dice, the false-positive volume (ours outside the reference class) and, for bone, how much lies
// in enhanced soft tissue the reference names (liver, spleen, kidneys, heart, aorta and other vessels). Without a
// reference, bone is split by the HU of its voxels (a reader's check on an enhanced CT). --ppm writes every axial
// slice (soft-tissue window, bone in red) as binary PPM for a look by eye.
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "inference/classic/auto_segmenter.h"
#include "io/volume/image_file.h"

using namespace delineate;
namespace classic = delineate::inference::classic;

namespace {

std::set<int> range(int a, int b) {
  std::set<int> s;
  for (int i = a; i <= b; ++i) s.insert(i);
  return s;
}
std::set<int> join(std::set<int> a, const std::set<int>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  std::string imagePath, refPath, ppm;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ppm" && i + 1 < argc) ppm = argv[++i];
    else if (imagePath.empty()) imagePath = a;
    else refPath = a;
  }
  if (imagePath.empty()) {
    std::fprintf(stderr, "usage: bench_auto_quality IMAGE [TOTALSEG_LABELS] [--ppm FOLDER]\n");
    return 2;
  }
  auto image = io::readImageFile(imagePath);
  if (!image) {
    std::fprintf(stderr, "%s: %s\n", imagePath.c_str(), image.error().describe().c_str());
    return 1;
  }
  classic::AutoOptions options;  // BONE_HU, CORTICAL_HU, SHELL_HU, SHELL_PER_TISSUE, BONE_REACH_MM, TRABECULAR_COST override the defaults, for sweeps
  if (const char* e = std::getenv("BONE_HU")) options.boneHu = std::atof(e);
  if (const char* e = std::getenv("CORTICAL_HU")) options.corticalHu = std::atof(e);
  if (const char* e = std::getenv("BONE_REACH_MM")) options.boneReachMm = std::atof(e);
  if (const char* e = std::getenv("SHELL_HU")) options.shellHu = std::atof(e);
  if (const char* e = std::getenv("TRABECULAR_COST")) options.trabecularCost = std::atof(e);
  if (const char* e = std::getenv("SHELL_PER_TISSUE")) options.shellPerTissue = std::atof(e);
  auto r = classic::segmentAutomatically(*image, {}, nullptr, options);
  if (!r) {
    std::fprintf(stderr, "segmentation failed: %s\n", r.error().describe().c_str());
    return 1;
  }
  const auto& geo = image->geometry();
  const auto sp = geo.spacingMm();
  const double voxelMl = sp[0] * sp[1] * sp[2] / 1000.0;
  const std::size_t n = image->size();
  const float* v = image->data();
  std::printf("%s: %lld x %lld x %lld, %.3f x %.3f x %.3f mm, CT %s\n", imagePath.c_str(),
              static_cast<long long>(geo.dimensions()[0]), static_cast<long long>(geo.dimensions()[1]),
              static_cast<long long>(geo.dimensions()[2]), sp[0], sp[1], sp[2], r->ct ? "yes" : "no");

  struct Class {
    const char* name;
    std::set<core::Label> ours;
    std::set<int> theirs;  // TotalSegmentator `total` ids
  };
  // TotalSegmentator total (v2): lobes 10-14, trachea 16, vertebrae and sacrum 25-50, humerus..hip 69-78, skull 91,
  // ribs 92-115, sternum 116. Body: every labelled voxel (the reference has no body class), so only its coverage counts.
  const std::set<int> bones = join(join(range(25, 50), range(69, 78)), range(91, 116));
  const std::vector<Class> classes = {
      {"bone", {classic::kBoneLabel}, bones},
      {"left lung", {classic::kLeftLungLabel}, range(10, 11)},
      {"right lung", {classic::kRightLungLabel}, range(12, 14)},
      {"lungs", {classic::kLeftLungLabel, classic::kRightLungLabel}, range(10, 14)},
      {"airway", {classic::kAirwayLabel}, {16}},
  };
  // Enhanced soft tissue that must not be bone: spleen 1, kidneys 2-3, liver 5, heart 51, aorta and the other vessels
  // 52-68, and the kidneys' cysts 23-24.
  const std::set<int> enhanced = join(join(join(range(1, 3), {5}), range(51, 68)), range(23, 24));
  std::vector<float> ref;
  if (!refPath.empty()) {
    auto labels = io::readImageFile(refPath);
    if (!labels) {
      std::fprintf(stderr, "%s: %s\n", refPath.c_str(), labels.error().describe().c_str());
      return 1;
    }
    if (labels->size() != n) {
      std::fprintf(stderr, "%s: not on the image's grid\n", refPath.c_str());
      return 1;
    }
    ref.assign(labels->data(), labels->data() + labels->size());
  }
  const auto in = [](const auto& set, int x) { return set.count(static_cast<typename std::decay_t<decltype(set)>::key_type>(x)) > 0; };

  std::size_t body = 0, bodyOnly = 0;
  for (std::size_t i = 0; i < n; ++i) body += r->voxels[i] != 0, bodyOnly += r->voxels[i] == classic::kBodyLabel;
  std::printf("%-11s %10s %10s %7s %10s %10s\n", "class", "ours mL", "ref mL", "Dice", "FP mL", "FN mL");
  for (const Class& c : classes) {
    std::size_t ours = 0, theirs = 0, both = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool o = in(c.ours, r->voxels[i]);
      const bool t = !ref.empty() && in(c.theirs, static_cast<int>(ref[i]));
      ours += o, theirs += t, both += o && t;
    }
    if (ref.empty()) {
      std::printf("%-11s %10.1f\n", c.name, double(ours) * voxelMl);
      continue;
    }
    const double dice = ours + theirs > 0 ? 2.0 * double(both) / double(ours + theirs) : 1.0;
    std::printf("%-11s %10.1f %10.1f %7.3f %10.1f %10.1f\n", c.name, double(ours) * voxelMl, double(theirs) * voxelMl,
                dice, double(ours - both) * voxelMl, double(theirs - both) * voxelMl);
  }
  std::printf("%-11s %10.1f (body label alone %.1f mL)", "body", double(body) * voxelMl, double(bodyOnly) * voxelMl);
  if (!ref.empty()) {
    std::size_t labelled = 0, inside = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (ref[i] != 0) ++labelled, inside += r->voxels[i] != 0;
    std::printf(", reference voxels inside %.4f", labelled ? double(inside) / double(labelled) : 1.0);
  }
  std::printf("\n");
  std::size_t bone = 0, boneSoft = 0, boneLow = 0, boneMid = 0, boneHigh = 0, softRef = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!ref.empty() && in(enhanced, static_cast<int>(ref[i]))) ++softRef;
    if (r->voxels[i] != classic::kBoneLabel) continue;
    ++bone;
    if (!ref.empty() && in(enhanced, static_cast<int>(ref[i]))) ++boneSoft;
    (v[i] < 100 ? boneLow : v[i] < 400 ? boneMid : boneHigh) += 1;
  }
  std::printf("bone by HU: below 100 %.1f mL (marrow, partial volume), 100-400 %.1f mL, above 400 %.1f mL\n",
              double(boneLow) * voxelMl, double(boneMid) * voxelMl, double(boneHigh) * voxelMl);
  if (!ref.empty())
    std::printf("bone in the reference's liver, spleen, kidneys, heart and vessels: %.1f mL of %.1f mL (%.2f%% of that "
                "tissue)\n",
                double(boneSoft) * voxelMl, double(bone) * voxelMl,
                softRef ? 100.0 * double(boneSoft) / double(softRef) : 0.0);

  if (!ppm.empty()) {
    const auto d = geo.dimensions();
    for (std::int64_t z = 0; z < d[2]; ++z) {
      const std::string path = ppm + "/slice" + std::to_string(z) + ".ppm";
      std::ofstream out(path, std::ios::binary);
      out << "P6\n" << d[0] << " " << d[1] << "\n255\n";
      for (std::int64_t y = 0; y < d[1]; ++y)
        for (std::int64_t x = 0; x < d[0]; ++x) {
          const auto i = static_cast<std::size_t>((z * d[1] + y) * d[0] + x);
          const float w = std::min(255.0f, std::max(0.0f, (v[i] + 160.0f) / 400.0f * 255.0f));
          unsigned char px[3] = {static_cast<unsigned char>(w), static_cast<unsigned char>(w), static_cast<unsigned char>(w)};
          if (r->voxels[i] == classic::kBoneLabel) px[0] = 255, px[1] = static_cast<unsigned char>(w / 2), px[2] = static_cast<unsigned char>(w / 2);
          out.write(reinterpret_cast<const char*>(px), 3);
        }
    }
  }
  return 0;
}
