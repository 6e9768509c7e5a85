// Brush latency on a full-size label map, end to end as the window paints: AnnotationSession::beginEdit ->
// core::paintBrush -> AnnotationSession::commit (the RLE undo step), per dab, beside a peer.
//
// The map: 512 x 512 x 300 at 0.7 x 0.7 x 1.0 mm with a few big blobs already labelled (body, liver, kidneys,
// spleen: ~40% of the voxels labelled). Dabs: 200 per case at random centres over the liver's box (inside, across its
// boundary and outside it), painting a lesion label; cases: disc r = 5, 10, 20 mm (axial), sphere r = 5, 10 mm.
// Also a 30-dab stroke in one transaction (a press and 29 drag events r/2 apart, disc r = 10 mm, 20 strokes), undo
// latency per dab and per stroke, and one run of each clean-up tool on a small label of the full map.
//
// Peer (built with -DDELINEATE_PEER_BENCH=ON): the same dabs the way an ITK-based tool does them (ITK-SNAP's
// paintbrush style): an itk::Image<uint16_t,3> holding the same labels, per dab the index region from the physical
// radius, a copy of that region kept for undo, then itk::ImageRegionIteratorWithIndex over it with a physical-distance
// test (TransformIndexToPhysicalPoint); undo copies the region back. Both sides' maps are compared after every case.
//
// Usage: bench_brush_latency [--dabs N]

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/annotation_session.h"
#include "core/label_tools.h"

#ifdef DELINEATE_WITH_ITK
#include <itkImage.h>
#include <itkImageRegionConstIterator.h>
#include <itkImageRegionIterator.h>
#include <itkImageRegionIteratorWithIndex.h>
#endif

using namespace delineate;
using core::Index3;
using core::Label;
using core::Vec3;

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "bench_brush_latency: %s\n", m.c_str());
  std::exit(1);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

constexpr Label kLesion = 7;

struct Blob {
  Vec3 centreLps;
  Vec3 semiAxesMm;
  Label label;
};

// Body, liver, kidneys, spleen as ellipsoids (later blobs over earlier ones), written straight into the buffer.
core::LabelMap makeLabels(const core::Geometry& g, const std::vector<Blob>& blobs) {
  auto v = core::Volume<Label>::create(g, 0);
  if (!v) die(v.error().describe());
  const auto& d = g.dimensions();
  const auto& sp = g.spacingMm();
  for (const Blob& b : blobs) {
    const Vec3 c = g.lpsToIndex(b.centreLps);
    std::int64_t lo[3], hi[3];
    for (std::size_t a = 0; a < 3; ++a) {
      const double half = b.semiAxesMm[a] / sp[a];
      lo[a] = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(c[a] - half)));
      hi[a] = std::min<std::int64_t>(d[a] - 1, static_cast<std::int64_t>(std::ceil(c[a] + half)));
    }
    for (std::int64_t k = lo[2]; k <= hi[2]; ++k)
      for (std::int64_t j = lo[1]; j <= hi[1]; ++j)
        for (std::int64_t i = lo[0]; i <= hi[0]; ++i) {
          const double x = (double(i) - c[0]) * sp[0] / b.semiAxesMm[0], y = (double(j) - c[1]) * sp[1] / b.semiAxesMm[1],
                       z = (double(k) - c[2]) * sp[2] / b.semiAxesMm[2];
          if (x * x + y * y + z * z <= 1) v->at(Index3{i, j, k}) = b.label;
        }
  }
  return core::LabelMap(std::move(v).value());
}

struct Case {
  std::string name;
  core::BrushOptions brush;
};

struct Figures {
  std::vector<double> total, begin, paint, commit, undo;
};

// Our side: one dab per transaction, as the window does on a click.
Figures ourDabs(core::AnnotationSession& session, const std::vector<Vec3>& centres, const core::BrushOptions& o) {
  Figures f;
  std::size_t steps = 0;
  for (const Vec3& c : centres) {
    const auto t0 = Clock::now();
    core::EditTransaction tx = session.beginEdit("Paint");
    const auto t1 = Clock::now();
    core::paintBrush(tx, c, kLesion, o);
    const auto t2 = Clock::now();
    steps += session.commit(tx);
    const auto t3 = Clock::now();
    f.begin.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    f.paint.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    f.commit.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    f.total.push_back(std::chrono::duration<double, std::milli>(t3 - t0).count());
  }
  if (steps != centres.size()) std::printf("  (note: %zu of %zu dabs changed nothing)\n", centres.size() - steps, centres.size());
  return f;
}

// Undoes `steps` steps, timing each.
std::vector<double> undoAll(core::AnnotationSession& session, std::size_t steps) {
  std::vector<double> t;
  for (std::size_t s = 0; s < steps; ++s) {
    const auto t0 = Clock::now();
    if (!session.undo()) die("undo refused");
    t.push_back(msSince(t0));
  }
  return t;
}

// The stroke: a press and 29 drag events r/2 apart (30 dabs) along a gentle curve, one transaction.
std::vector<Vec3> strokeEvents(const Vec3& start, double spacingMm, double bend) {
  std::vector<Vec3> e;
  double angle = 0;
  Vec3 p = start;
  for (int i = 0; i < 30; ++i) {
    e.push_back(p);
    p[0] += spacingMm * std::cos(angle);
    p[1] += spacingMm * std::sin(angle);
    angle += bend;
  }
  return e;
}

#ifdef DELINEATE_WITH_ITK
using ItkLabels = itk::Image<std::uint16_t, 3>;

ItkLabels::Pointer toItk(const core::LabelMap& map) {
  const core::Geometry& g = map.geometry();
  auto img = ItkLabels::New();
  const auto& d = g.dimensions();
  ItkLabels::RegionType region;
  region.SetSize({{static_cast<itk::SizeValueType>(d[0]), static_cast<itk::SizeValueType>(d[1]),
                   static_cast<itk::SizeValueType>(d[2])}});
  img->SetRegions(region);
  const double spacing[3] = {g.spacingMm()[0], g.spacingMm()[1], g.spacingMm()[2]};
  img->SetSpacing(spacing);
  const double origin[3] = {g.originLps()[0], g.originLps()[1], g.originLps()[2]};
  img->SetOrigin(origin);
  ItkLabels::DirectionType dir;
  for (unsigned r = 0; r < 3; ++r)
    for (unsigned c = 0; c < 3; ++c) dir(r, c) = g.direction()(static_cast<int>(r), static_cast<int>(c));
  img->SetDirection(dir);
  img->Allocate();
  std::copy(map.data(), map.data() + map.size(), img->GetBufferPointer());
  return img;
}

// What ITK-SNAP-style undo keeps per dab: the region and its voxels before the dab.
struct PeerUndo {
  ItkLabels::RegionType region;
  std::vector<std::uint16_t> before;
};

// One dab, ITK style: region from the physical radius, undo copy, iterate with a physical-distance test.
PeerUndo peerDab(ItkLabels* img, const Vec3& c, const core::BrushOptions& o, std::uint16_t label) {
  ItkLabels::PointType centre;
  for (unsigned a = 0; a < 3; ++a) centre[a] = c[a];
  itk::ContinuousIndex<double, 3> ci;
  img->TransformPhysicalPointToContinuousIndex(centre, ci);
  const auto spacing = img->GetSpacing();
  ItkLabels::IndexType lo, hi;
  for (unsigned a = 0; a < 3; ++a) {
    if (!o.sphere && static_cast<int>(a) == o.axis) {
      lo[a] = hi[a] = static_cast<itk::IndexValueType>(std::llround(ci[a]));
    } else {
      lo[a] = static_cast<itk::IndexValueType>(std::floor(ci[a] - o.radiusMm / spacing[a]));
      hi[a] = static_cast<itk::IndexValueType>(std::ceil(ci[a] + o.radiusMm / spacing[a]));
    }
  }
  ItkLabels::RegionType region;
  region.SetIndex(lo);
  region.SetSize({{static_cast<itk::SizeValueType>(hi[0] - lo[0] + 1), static_cast<itk::SizeValueType>(hi[1] - lo[1] + 1),
                   static_cast<itk::SizeValueType>(hi[2] - lo[2] + 1)}});
  PeerUndo undo;
  if (!region.Crop(img->GetLargestPossibleRegion())) return undo;
  undo.region = region;
  undo.before.reserve(region.GetNumberOfPixels());
  for (itk::ImageRegionConstIterator<ItkLabels> it(img, region); !it.IsAtEnd(); ++it) undo.before.push_back(it.Get());
  // The disc's normal: the direction column of its axis (the in-plane distance leaves out the offset along it).
  const auto& dir = img->GetDirection();
  const double r2 = o.radiusMm * o.radiusMm;
  ItkLabels::PointType p;
  for (itk::ImageRegionIteratorWithIndex<ItkLabels> it(img, region); !it.IsAtEnd(); ++it) {
    img->TransformIndexToPhysicalPoint(it.GetIndex(), p);
    const double dx = p[0] - centre[0], dy = p[1] - centre[1], dz = p[2] - centre[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    if (!o.sphere) {
      const auto a = static_cast<unsigned>(o.axis);
      const double along = dx * dir(0, a) + dy * dir(1, a) + dz * dir(2, a);
      d2 -= along * along;
    }
    if (d2 <= r2) it.Set(label);
  }
  return undo;
}

void peerUndo(ItkLabels* img, const PeerUndo& u) {
  if (u.before.empty()) return;
  std::size_t i = 0;
  for (itk::ImageRegionIterator<ItkLabels> it(img, u.region); !it.IsAtEnd(); ++it) it.Set(u.before[i++]);
}

std::size_t differences(const core::LabelMap& ours, const ItkLabels* peer) {
  const std::uint16_t* p = peer->GetBufferPointer();
  std::size_t n = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) n += ours[i] != p[i];
  return n;
}
#endif

void row(const char* name, const std::vector<double>& ours, const std::vector<double>* peer) {
  std::printf("%-28s %8.3f %8.3f %8.3f", name, percentile(ours, 0.5), percentile(ours, 0.95), percentile(ours, 1.0));
  if (peer && !peer->empty())
    std::printf("   %8.3f %8.3f %8.3f   %6.2fx", percentile(*peer, 0.5), percentile(*peer, 0.95), percentile(*peer, 1.0),
                percentile(*peer, 0.5) / percentile(ours, 0.5));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t dabs = 200;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dabs") == 0 && i + 1 < argc) {
      dabs = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr, "usage: bench_brush_latency [--dabs N]\n");
      return 2;
    }
  }

  const core::Geometry g({512, 512, 300}, {0.7, 0.7, 1.0}, {-179.2, -179.2, -150});
  const std::vector<Blob> blobs = {
      {{0, 0, 0}, {165, 120, 148}, 1},       // body
      {{-60, -10, 40}, {85, 65, 75}, 2},     // liver (patient's right: -x in LPS)
      {{-55, 50, -30}, {30, 28, 55}, 3},     // right kidney
      {{55, 50, -30}, {30, 28, 55}, 4},      // left kidney
      {{70, 20, 50}, {45, 35, 55}, 5},       // spleen
  };
  auto t0 = Clock::now();
  core::LabelMap labels = makeLabels(g, blobs);
  auto image = core::ImageVolume::create(g, 0.0f);
  if (!image) die(image.error().describe());
  core::LabelTable table;
  auto sessionResult = core::AnnotationSession::create(std::move(image).value(), labels, table);
  if (!sessionResult) die(sessionResult.error().describe());
  core::AnnotationSession session = std::move(sessionResult).value();
  std::size_t labelled = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) labelled += labels[i] != 0;
  std::printf("map: 512 x 512 x 300 (%.1f M voxels, %.0f MB labels), 0.7 x 0.7 x 1.0 mm, %.0f%% labelled "
              "(body, liver, kidneys, spleen); set up in %.2f s\n",
              static_cast<double>(labels.size()) / 1e6, static_cast<double>(labels.size()) * 2 / 1e6,
              100.0 * static_cast<double>(labelled) / static_cast<double>(labels.size()), msSince(t0) / 1000);

#ifdef DELINEATE_WITH_ITK
  t0 = Clock::now();
  ItkLabels::Pointer peer = toItk(labels);
  std::printf("peer: itk::Image<uint16_t,3> copy of the labels, %.2f s\n", msSince(t0) / 1000);
#endif

  // Dab centres over the liver's box: inside, across its boundary and outside it.
  std::mt19937 rng(42);
  const Blob& liver = blobs[1];
  std::uniform_real_distribution<double> ux(-1, 1);
  std::vector<Vec3> centres;
  for (std::size_t i = 0; i < dabs; ++i)
    centres.push_back({liver.centreLps[0] + ux(rng) * liver.semiAxesMm[0], liver.centreLps[1] + ux(rng) * liver.semiAxesMm[1],
                       liver.centreLps[2] + ux(rng) * liver.semiAxesMm[2]});

  const std::vector<Case> cases = {
      {"disc r=5 mm", {5, false, 2, {}}},  {"disc r=10 mm", {10, false, 2, {}}}, {"disc r=20 mm", {20, false, 2, {}}},
      {"sphere r=5 mm", {5, true, 2, {}}}, {"sphere r=10 mm", {10, true, 2, {}}},
  };

  std::printf("\none dab, end to end (%zu dabs per case), ms\n", dabs);
  std::printf("%-28s %8s %8s %8s   %8s %8s %8s   %7s\n", "", "ours p50", "p95", "max", "ITK p50", "p95", "max",
              "ITK/ours");
  struct Undo {
    std::string name;
    std::vector<double> ours, peer;
  };
  std::vector<Undo> undos;
  std::vector<std::string> breakdown;
  for (const Case& c : cases) {
    const Figures f = ourDabs(session, centres, c.brush);
    std::vector<double> peerMs, peerUndoMs;
#ifdef DELINEATE_WITH_ITK
    std::vector<PeerUndo> peerSteps;
    for (const Vec3& centre : centres) {
      const auto p0 = Clock::now();
      peerSteps.push_back(peerDab(peer.GetPointer(), centre, c.brush, kLesion));
      peerMs.push_back(msSince(p0));
    }
    const std::size_t differ = differences(session.labels(), peer.GetPointer());
    if (differ != 0) std::printf("  (note: %s: ours and the peer differ in %zu voxels)\n", c.name.c_str(), differ);
    for (auto it = peerSteps.rbegin(); it != peerSteps.rend(); ++it) {
      const auto p0 = Clock::now();
      peerUndo(peer.GetPointer(), *it);
      peerUndoMs.push_back(msSince(p0));
    }
#endif
    row((c.name + " dab").c_str(), f.total, &peerMs);
    char line[200];
    std::snprintf(line, sizeof line, "  %-16s begin %.3f  paint %.3f  commit %.3f", c.name.c_str(), percentile(f.begin, 0.5),
                  percentile(f.paint, 0.5), percentile(f.commit, 0.5));
    breakdown.push_back(line);
    undos.push_back({c.name, undoAll(session, session.history().undoCount()), peerUndoMs});
  }
#ifdef DELINEATE_WITH_ITK
  std::printf("(both sides' maps compared after every case: %s)\n",
              differences(session.labels(), peer.GetPointer()) == 0 ? "identical, and identical after undo" : "DIFFER after undo");
#endif

  // 30-dab strokes: our transaction across the whole drag vs the peer's dab-by-dab region copies.
  const core::BrushOptions strokeBrush{10, false, 2, {}};
  std::vector<double> strokeTotal, strokeEvent, strokeCommit, strokeUndo, peerStroke, peerStrokeUndo;
  std::uniform_real_distribution<double> bend(-0.05, 0.05);
  for (int s = 0; s < 20; ++s) {
    const Vec3 start{liver.centreLps[0] - 70 + ux(rng) * 5, liver.centreLps[1] + ux(rng) * 40, liver.centreLps[2] + ux(rng) * 60};
    const std::vector<Vec3> events = strokeEvents(start, strokeBrush.radiusMm / 2 - 0.1, bend(rng));
    const auto t1 = Clock::now();
    core::EditTransaction tx = session.beginEdit("Paint");
    for (std::size_t e = 0; e < events.size(); ++e) {
      const auto te = Clock::now();
      if (e == 0) core::paintBrush(tx, events[0], kLesion, strokeBrush);
      else core::paintStroke(tx, events[e - 1], events[e], kLesion, strokeBrush);
      strokeEvent.push_back(msSince(te));
    }
    const auto tc = Clock::now();
    session.commit(tx);
    strokeCommit.push_back(msSince(tc));
    strokeTotal.push_back(msSince(t1));
#ifdef DELINEATE_WITH_ITK
    std::vector<PeerUndo> steps;
    const auto p0 = Clock::now();
    for (const Vec3& e : events) steps.push_back(peerDab(peer.GetPointer(), e, strokeBrush, kLesion));
    peerStroke.push_back(msSince(p0));
    const auto pu = Clock::now();
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) peerUndo(peer.GetPointer(), *it);
    peerStrokeUndo.push_back(msSince(pu));
    std::vector<PeerUndo>().swap(steps);
    // Keep both sides' maps equal for the next stroke: the peer redoes the stroke it just undid.
    for (const Vec3& e : events) peerDab(peer.GetPointer(), e, strokeBrush, kLesion);
#endif
  }
#ifdef DELINEATE_WITH_ITK
  const std::size_t strokeDiffer = differences(session.labels(), peer.GetPointer());
#endif
  const std::vector<double> strokeUndoOurs = undoAll(session, 20);
  row("30-dab stroke (disc r=10)", strokeTotal, &peerStroke);
  row("  per drag event", strokeEvent, nullptr);
  row("  commit", strokeCommit, nullptr);
#ifdef DELINEATE_WITH_ITK
  std::printf("(strokes: maps %s)\n", strokeDiffer == 0 ? "identical" : "DIFFER");
#endif

  std::printf("\nundo, ms per step\n");
  for (const Undo& u : undos) row(("undo " + u.name + " dab").c_str(), u.ours, &u.peer);
  row("undo 30-dab stroke", strokeUndoOurs, &peerStrokeUndo);

  std::printf("\nours, p50 by part, ms (begin = beginEdit's row table; commit = the RLE undo step)\n");
  for (const std::string& b : breakdown) std::printf("%s\n", b.c_str());

  // Clean-up tools on a small label of the full map (no peer): a few dabs outside the body (interpolation and hole
  // filling write only into background), with a hole, a speck and two discs a few slices away.
  {
    core::EditTransaction tx = session.beginEdit("Lesion");
    const Vec3 c{-150, -150, 40};
    core::paintBrush(tx, c, kLesion, {12, true, 2, {}});
    core::paintBrush(tx, c, 0, {4, true, 2, {}});
    core::paintBrush(tx, {c[0] + 20, c[1], c[2]}, kLesion, {1, true, 2, {}});
    for (const double dz : {-10.0, 10.0}) core::paintBrush(tx, {c[0], c[1], c[2] + dz * 2}, kLesion, {8, false, 2, {}});
    session.commit(tx);
  }
  std::printf("\nclean-up on a small label (a blob with a hole, a speck and two discs slices apart) of the full map, one run "
              "each, through the session, ms (no peer)\n");
  auto timeTool = [&](const char* name, auto&& tool) {
    const auto tt = Clock::now();
    core::EditTransaction tx = session.beginEdit(name);
    const core::Result<std::size_t> r = tool(tx);
    session.commit(tx);
    std::printf("  %-34s %8.1f   (%zu voxels written)\n", name, msSince(tt), r ? *r : std::size_t{0});
  };
  {
    const auto tb = Clock::now();
    const core::IndexBox box = core::labelBoundingBox(session.labels(), kLesion);
    std::printf("  %-34s %8.1f   (box %lld x %lld x %lld)\n", "labelBoundingBox (full-map scan)", msSince(tb),
                static_cast<long long>(box.max[0] - box.min[0] + 1), static_cast<long long>(box.max[1] - box.min[1] + 1),
                static_cast<long long>(box.max[2] - box.min[2] + 1));
  }
  const core::LabelMap& m = session.labels();
  timeTool("removeSmallIslands (< 50 voxels)", [&](core::EditTransaction& tx) { return core::removeSmallIslands(tx, m, kLesion, 50); });
  timeTool("fillHoles 3D", [&](core::EditTransaction& tx) { return core::fillHoles(tx, m, kLesion); });
  timeTool("interpolateSlices (axial)", [&](core::EditTransaction& tx) { return core::interpolateSlices(tx, m, kLesion, 2); });
  timeTool("smoothLabel r=2 mm", [&](core::EditTransaction& tx) { return core::smoothLabel(tx, m, kLesion, 2.0); });
  timeTool("keepLargestIsland", [&](core::EditTransaction& tx) { return core::keepLargestIsland(tx, m, kLesion); });
  timeTool("floodFill 2D (body, one slice)", [&](core::EditTransaction& tx) {
    return core::floodFill(tx, m, g.lpsToNearestIndex({0, 60, 0}), 8, core::FloodOptions{false, 2, {}});
  });

  std::printf("\npeak RSS %.0f MB\n", peakRssMb());
#ifndef DELINEATE_WITH_ITK
  std::printf("(peer: build with -DDELINEATE_PEER_BENCH=ON for the ITK-style brush beside it)\n");
#endif
  return 0;
}
