// The viewer rendered offscreen (Xvfb + Mesa): a phantom with a bright marker on the patient's left and another in
// front, checked for patient orientation (also with a flipped direction matrix), overlay colours and visibility,
// picking, and against baseline PNGs; label surfaces in 3D.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QImage>

#include <cmath>

#include <vtkPolyData.h>

#include "tests/gui_support/gui_app.h"
#include "viewer/slice_scene.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

using namespace delineate;

namespace {

struct Phantom {
  core::ImageVolume image;
  core::LabelMap labels;
  core::LabelTable table;
};

// 80 x 70 x 50 voxels of 1.0 x 1.2 x 2.0 mm: an elliptic body (40 HU, label 1), a bright cube on the patient's left
// (1000 HU, label 2) and a small one in front (label 3). `flipped`: the same anatomy stored with x and y reversed
// (a RAS-like direction matrix), so the same patient side lies at the other end of the index axes.
Phantom phantom(bool flipped) {
  const core::Size3 d{80, 70, 50};
  core::Mat3 dir = core::Mat3::identity();
  core::Vec3 origin{-40, -42, -50};
  if (flipped) {
    dir(0, 0) = -1, dir(1, 1) = -1;
    origin = {39, 40.8, -50};  // index 0 now at the patient's left and back
  }
  const core::Geometry g(d, {1.0, 1.2, 2.0}, origin, dir);
  Phantom p{core::ImageVolume::create(g, -1000.0f).value(), {}, {}};
  auto labels = core::Volume<core::Label>::create(g, 0).value();
  for (std::int64_t z = 0; z < d[2]; ++z)
    for (std::int64_t y = 0; y < d[1]; ++y)
      for (std::int64_t x = 0; x < d[0]; ++x) {
        const core::Vec3 lps = g.indexToLps(core::Index3{x, y, z});
        const double ex = lps[0] / 32.0, ey = lps[1] / 30.0;
        core::Label l = 0;
        float v = -1000;
        if (ex * ex + ey * ey < 1) v = 40, l = 1;
        if (lps[0] > 14 && lps[0] < 26 && std::fabs(lps[1]) < 8 && std::fabs(lps[2]) < 30) v = 1000, l = 2;
        if (std::fabs(lps[0]) < 5 && lps[1] > -26 && lps[1] < -18 && std::fabs(lps[2]) < 30) v = 600, l = 3;
        p.image.at({x, y, z}) = v;
        labels.at({x, y, z}) = l;
      }
  p.labels = core::LabelMap(std::move(labels));
  const auto entry = [](core::Label id, const char* name, core::Rgba color) {
    core::LabelEntry e;
    e.id = id;
    e.name = name;
    e.color = color;
    return e;
  };
  p.table.set(entry(1, "body", {60, 90, 220, 255}));
  p.table.set(entry(2, "marker left", {230, 30, 30, 255}));
  p.table.set(entry(3, "marker front", {30, 220, 60, 255}));
  return p;
}

struct Counts {
  int left = 0, right = 0, top = 0, bottom = 0;
};

// Pixels whose colour is dominated by one channel (at least 1.5 times each other one: a label's overlay), by
// screen half.
Counts dominated(const QImage& img, int channel) {
  Counts c;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QRgb p = img.pixel(x, y);
      const int v[3] = {qRed(p), qGreen(p), qBlue(p)};
      if (v[channel] < 120 || 2 * v[channel] < 3 * v[(channel + 1) % 3] || 2 * v[channel] < 3 * v[(channel + 2) % 3]) continue;
      (x < img.width() / 2 ? c.left : c.right)++;
      (y < img.height() / 2 ? c.top : c.bottom)++;
    }
  return c;
}

QImage renderAxial(viewer::VtkView& view, viewer::SliceScene& scene, const Phantom& p, const std::set<core::Label>& hidden) {
  scene.setImage(&p.image);
  scene.setLabels(&p.labels);
  scene.setLabelColors(p.table, hidden);
  scene.setLabelOpacity(0.6);
  scene.setWindowLevel(400, 40);
  return view.capture();
}

// A 320 x 240 view showing an axial scene (the application started first).
struct AxialView {
  viewer::VtkView view;
  viewer::SliceScene scene;
  AxialView() : view((test::guiApp(), nullptr)), scene(view.renderer(), viewer::SliceOrientation::Axial) {
    view.resize(320, 240);
    view.show();
  }
};

}  // namespace

TEST_CASE("viewer: an axial slice shows the patient's left on the screen's right and the front at the top, with any "
          "direction matrix", "[viewer][render]") {
  test::guiApp();
  for (const bool flipped : {false, true}) {
    INFO((flipped ? "RAS-like direction" : "LPS direction"));
    viewer::VtkView view;
    view.resize(320, 240);
    view.show();
    viewer::SliceScene scene(view.renderer(), viewer::SliceOrientation::Axial);
    const Phantom p = phantom(flipped);
    const QImage img = renderAxial(view, scene, p, {});
    REQUIRE(img.width() == 320);
    const Counts red = dominated(img, 0), green = dominated(img, 1);
    INFO("red left/right " << red.left << "/" << red.right << ", green top/bottom " << green.top << "/" << green.bottom);
    CHECK(red.right > 200);
    CHECK(red.left == 0);
    CHECK(green.top > 50);
    CHECK(green.bottom == 0);
    const auto [index, count] = scene.sliceIndex();
    CHECK(count == 50);
    CHECK(index == 24);  // the middle voxel of 50 slices, (50 - 1) / 2
    if (!flipped) {
      const auto cmp = test::compareWithBaseline(img, "viewer", "axial_overlay");
      INFO(cmp.message);
      CHECK(cmp.ok);
    }
  }
}

TEST_CASE("viewer: hidden labels vanish from the overlay, opacity 0 hides all, and scrolling leaves the markers",
          "[viewer][render]") {
  AxialView axial;
  auto& [view, scene] = axial;
  const Phantom p = phantom(false);
  CHECK(dominated(renderAxial(view, scene, p, {}), 0).right > 200);
  scene.setLabelColors(p.table, {2});
  CHECK(dominated(view.capture(), 0).right == 0);
  CHECK(dominated(view.capture(), 1).top > 50);  // the other marker stays
  scene.setLabelColors(p.table, {});
  scene.setLabelOpacity(0);
  CHECK(dominated(view.capture(), 1).top == 0);
  scene.setLabelOpacity(0.6);
  // The markers span |z| < 30 mm: 20 slices of 2 mm up they are gone, and the body remains.
  scene.scroll(20);
  CHECK(scene.sliceIndex().first == 44);
  CHECK(dominated(view.capture(), 0).right == 0);
  CHECK(dominated(view.capture(), 2).right > 200);  // the body's blue
  scene.scroll(100);  // clamped at the last slice
  CHECK(scene.sliceIndex().first == 49);
}

TEST_CASE("viewer: the outline overlay draws each label's border in the slice and leaves the image inside visible",
          "[viewer][render]") {
  AxialView axial;
  auto& [view, scene] = axial;
  const Phantom p = phantom(false);
  const int filled = dominated(renderAxial(view, scene, p, {}), 0).right;
  scene.setLabelOutline(true);
  const QImage img = view.capture();
  const int outlined = dominated(img, 0).right;
  INFO("red pixels filled " << filled << ", outlined " << outlined);
  CHECK(outlined > 20);              // the border is there
  CHECK(outlined < filled / 2);      // but not the inside
  // The marker's centre (x = 20 mm, y = 0 in LPS) shows the bright image, not the overlay.
  const QSize px = view.pixelSize();
  bool found = false;
  for (int x = px.width() / 2; x < px.width() && !found; ++x) {
    const core::Vec3 at = scene.pick(x, px.height() / 2.0);
    if (at[0] > 19.5) {
      const QRgb c = img.pixel(x, img.height() / 2);
      CHECK(qGreen(c) > 200);  // white-ish (1000 HU), not red
      found = true;
    }
  }
  CHECK(found);
  const auto cmp = test::compareWithBaseline(img, "viewer", "axial_outline");
  INFO(cmp.message);
  CHECK(cmp.ok);
}

TEST_CASE("viewer: picking returns the LPS point under the mouse on the slice plane", "[viewer][render]") {
  test::guiApp();
  viewer::VtkView view;
  view.resize(320, 240);
  view.show();
  for (const auto orientation : {viewer::SliceOrientation::Axial, viewer::SliceOrientation::Coronal, viewer::SliceOrientation::Sagittal}) {
    INFO(viewer::orientationName(orientation));
    viewer::SliceScene scene(view.renderer(), orientation);
    const Phantom p = phantom(false);
    scene.setImage(&p.image);
    view.capture();
    const QSize px = view.pixelSize();
    const core::Vec3 centre = scene.pick(px.width() / 2.0, px.height() / 2.0);
    const core::Vec3 cursor = scene.cursor();
    for (std::size_t a = 0; a < 3; ++a) CHECK(centre[a] == Approx(cursor[a]).margin(2.0));
    // 40 pixels to the right is towards the screen's right axis (patient left in axial and coronal, back in sagittal).
    const core::Vec3 right = scene.pick(px.width() / 2.0 + 40, px.height() / 2.0);
    const std::size_t axis = orientation == viewer::SliceOrientation::Sagittal ? 1 : 0;
    CHECK(right[axis] > centre[axis] + 5);
    // Every pick lies on the slice plane through the cursor.
    const core::Vec3& n = scene.normal();
    CHECK((right[0] - cursor[0]) * n[0] + (right[1] - cursor[1]) * n[1] + (right[2] - cursor[2]) * n[2] == Approx(0).margin(1e-6));
  }
}

TEST_CASE("viewer: label surfaces in 3D, one per label, shown and hidden per label", "[viewer][render]") {
  test::guiApp();
  const Phantom p = phantom(false);
  auto surfaces = viewer::buildLabelSurfaces(p.labels);
  REQUIRE(surfaces.size() == 3);
  for (const auto& [label, mesh] : surfaces) CHECK(mesh->GetNumberOfPolys() > 100);
  // The left marker's surface sits on the patient's left (x between 14 and 26 mm, smoothed).
  double b[6];
  surfaces.at(2)->GetBounds(b);
  CHECK(b[0] > 12);
  CHECK(b[1] < 28);
  viewer::VtkView view;
  view.resize(320, 240);
  view.show();
  viewer::SurfaceScene scene(view.renderer());
  scene.setBounds(p.image.geometry());
  scene.setSurfaces(std::move(surfaces));
  scene.setLabelColors(p.table, {1});  // the body hidden: the markers show
  CHECK(scene.visibleSurfaceCount() == 2);
  const QImage img = view.capture();
  const Counts red = dominated(img, 0);
  INFO("red left/right " << red.left << "/" << red.right);
  CHECK(red.right > 100);  // seen from the front, the patient's left is on the screen's right
  const auto cmp = test::compareWithBaseline(img, "viewer", "surfaces_front");
  INFO(cmp.message);
  CHECK(cmp.ok);
  scene.setLabelColors(p.table, {1, 2});
  CHECK(scene.visibleSurfaceCount() == 1);
  CHECK(dominated(view.capture(), 0).right == 0);
}

TEST_CASE("viewer: the 3D view shows the three slices through the cursor in patient orientation, and hides them",
          "[viewer][render]") {
  test::guiApp();
  const Phantom p = phantom(false);
  viewer::VtkView view;
  view.resize(320, 240);
  view.show();
  viewer::SurfaceScene scene(view.renderer());
  scene.setBounds(p.image.geometry());
  scene.setImage(&p.image);
  scene.setWindowLevel(400, 40);
  // White pixels (the 1000 HU marker on the patient's left, cut by the coronal slice) by screen half.
  const auto white = [](const QImage& img) {
    Counts c;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x)
        if (qRed(img.pixel(x, y)) > 240 && qGreen(img.pixel(x, y)) > 240 && qBlue(img.pixel(x, y)) > 240)
          (x < img.width() / 2 ? c.left : c.right)++;
    return c;
  };
  const Counts shown = white(view.capture());
  INFO("white left/right " << shown.left << "/" << shown.right);
  CHECK(shown.right > 100);      // seen from the front: the patient's left on the screen's right
  CHECK(shown.left < shown.right / 10);
  // A cursor at (-30, 20, 40) mm lies beyond the marker (x 14..26, |y| < 8, |z| < 30) along every axis: no slice
  // cuts it any more.
  scene.setCursor({-30, 20, 40});
  CHECK(white(view.capture()).right < shown.right / 10);
  scene.setCursor({0, 0, 0});
  scene.setSlicesVisible(false);
  CHECK(white(view.capture()).right == 0);
}
