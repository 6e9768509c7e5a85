// Issue 23, items 5-8, through the real window: AI click points drawn as +/- markers on the views that hold them and
// a preview that contrasts with the label under it; the 3D camera framing each new study (a mouse after a CT) with an
// orientation marker; volumes in a unit that fits their size; a brush that starts at a size that fits the image.
#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include <vtkRenderer.h>

#include <algorithm>
#include <cmath>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/base/volume_text.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/editing/label_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/views/view_panels.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"
#include "viewer/label_colors.h"
#include "viewer/surface_scene.h"
#include "viewer/vtk_view.h"

using namespace delineate;
using app::gui::LabelPanel;
using app::gui::MainWindow;
using app::gui::SlicePanel;
using test::QuietWindow;
using test::waitFor;
using viewer::SliceOrientation;

namespace {

const char* kMouseImage = "data/mouse/fvb-ncrl-in-vivo/template/FVB_NCrl_in_vivo_1.nii.gz";
const char* kMouseLabels = "data/mouse/fvb-ncrl-in-vivo/label/FVB_NCrl_in_vivo_1.nii.gz";

void open(MainWindow& window, const std::string& image, const std::string& labels = {}) {
  QSignalSpy loaded(&window, &MainWindow::studyLoaded);
  REQUIRE(window.loader().openImage(QString::fromStdString(image), QString::fromStdString(labels)));
  REQUIRE(waitFor(loaded));
  REQUIRE(window.document().hasStudy());
}

QPoint widgetPoint(SlicePanel* panel, const core::Vec3& lps) {
  const auto d = panel->scene().displayPoint(lps);
  const double dpr = panel->view().devicePixelRatioF();
  return QPoint(static_cast<int>(std::lround(d[0] / dpr)), panel->view().height() - static_cast<int>(std::lround(d[1] / dpr)));
}

double hueDistance(core::Rgba a, core::Rgba b) {
  const double d = std::fabs(viewer::hueDegrees(a) - viewer::hueDegrees(b));
  return std::min(d, 360 - d);
}

struct Framing {
  bool inside = true;  // every corner of the study's box within the view
  double cover = 0;    // the larger of the box's projected width and height, as a fraction of the view's
};

// Where the 3D view shows the corners of `g`'s box.
Framing framing(app::gui::SurfacePanel* panel, const core::Geometry& g) {
  panel->view().capture();  // renders at the widget's size
  vtkRenderer* r = panel->view().renderer();
  const int* size = r->GetSize();
  REQUIRE(size[0] > 0);
  REQUIRE(size[1] > 0);
  double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
  Framing f;
  const auto& d = g.dimensions();
  for (int i = 0; i < 8; ++i) {
    const core::Vec3 c = g.indexToLps(core::Vec3{(i & 1) ? double(d[0] - 1) : 0.0, (i & 2) ? double(d[1] - 1) : 0.0,
                                                 (i & 4) ? double(d[2] - 1) : 0.0});
    r->SetWorldPoint(c[0], c[1], c[2], 1.0);
    r->WorldToDisplay();
    double p[3];
    r->GetDisplayPoint(p);
    for (int a = 0; a < 2; ++a) lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    f.inside = f.inside && p[0] >= -1 && p[1] >= -1 && p[0] <= size[0] + 1 && p[1] <= size[1] + 1;
  }
  f.cover = std::max((hi[0] - lo[0]) / size[0], (hi[1] - lo[1]) / size[1]);
  return f;
}

}  // namespace

TEST_CASE("AI click points show as +/- markers on the views that hold them, the preview contrasts with the label",
          "[gui][ai]") {
  test::guiApp();
  test::ScratchDir dir("gui-click-markers");
  QuietWindow window(QSize(1400, 900));
  app::gui::AiPanel* ai = window.aiPanel();
  QSignalSpy engine(ai, &app::gui::AiPanel::engineChanged);
  open(window, test::kSampleCt, test::sampleLabels(dir));
  REQUIRE(waitFor(engine));
  REQUIRE(ai->engineReady());
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  window.labelPanel()->addLabel("object");

  SlicePanel* axial = window.slicePanel(SliceOrientation::Axial);
  SlicePanel* coronal = window.slicePanel(SliceOrientation::Coronal);
  SlicePanel* sagittal = window.slicePanel(SliceOrientation::Sagittal);
  const auto& g = window.document().session()->image().geometry();
  const core::Index3 middle = g.lpsToNearestIndex(window.cursor());
  // Off the crosshair in both in-plane directions: in the axial slice only.
  const core::Index3 seed{middle[0] + 12, middle[1] + 8, middle[2]};
  const core::Label under = window.document().session()->labels().at(seed);
  REQUIRE(under != 0);
  // The label under the click in pure red: a yellow preview over it read as orange.
  const core::Rgba red{255, 0, 0, 255};
  core::LabelEntry entry;
  if (const core::LabelEntry* e = window.document().session()->table().find(under)) entry = *e;
  entry.id = under;
  if (entry.name.empty()) entry.name = "under";
  entry.color = red;
  window.document().setLabelEntry(entry, "Recolour label");

  QTest::keyClick(&window, Qt::Key_A);
  REQUIRE(ai->clickMode());
  QSignalSpy preview(ai, &app::gui::AiPanel::previewUpdated);
  const QImage beforeClick = axial->view().capture().convertToFormat(QImage::Format_RGB32);
  QTest::mouseClick(&axial->view(), Qt::LeftButton, Qt::NoModifier, widgetPoint(axial, g.indexToLps(seed)));
  // Drawn at once, before the engine is done.
  CHECK(axial->scene().shownClickPoints(true) == 1);
  REQUIRE(waitFor(preview));
  REQUIRE(ai->pointCount() == 1);
  CHECK(axial->scene().shownClickPoints(true) == 1);
  CHECK(axial->scene().shownClickPoints(false) == 0);
  CHECK(coronal->scene().shownClickPoints(true) == 0);
  CHECK(sagittal->scene().shownClickPoints(true) == 0);

  // The preview's hue lies far from the red label it covers (yellow's is 52 degrees from red's).
  REQUIRE(axial->scene().hasPreview());
  CHECK(hueDistance(axial->scene().previewColor(), red) >= 90);
  CHECK(axial->scene().previewColor() == coronal->scene().previewColor());
  {
    // Issue 41: the preview was a one-voxel rim, hard to see over other labels. In the rendered view now: an opaque
    // band in its colour along its edge, and around it a dark outline where labels and tissue were bright before.
    const QImage shown = axial->view().capture().convertToFormat(QImage::Format_RGB32);
    REQUIRE(shown.size() == beforeClick.size());
    const core::Rgba c = axial->scene().previewColor();
    auto luma = [](QRgb p) { return 0.299 * qRed(p) + 0.587 * qGreen(p) + 0.114 * qBlue(p); };
    int rim = 0, outline = 0;
    for (int y = 0; y < shown.height(); ++y)
      for (int x = 0; x < shown.width(); ++x) {
        const QRgb p = shown.pixel(x, y);
        // The preview's colour over what was there: nearer its colour than before the click (by a third of the way).
        const QRgb was = beforeClick.pixel(x, y);
        auto dist = [&](QRgb q) { return std::abs(qRed(q) - c.r) + std::abs(qGreen(q) - c.g) + std::abs(qBlue(q) - c.b); };
        rim += dist(p) < dist(was) * 2 / 3;
        outline += luma(p) < 45 && luma(beforeClick.pixel(x, y)) > 90;
      }
    INFO("rim pixels " << rim << ", outline pixels " << outline << ", preview colour " << int(c.r) << "," << int(c.g) << "," << int(c.b));
    CHECK(outline > 40);
    CHECK(rim > outline);
    if (const QByteArray shots = qgetenv("DELINEATE_SCREENSHOT_DIR"); !shots.isEmpty())
      shown.save(QString::fromLocal8Bit(shots) + "/click_preview.png");
  }

  // A negative click elsewhere in the same slice: a "-" there.
  preview.clear();
  const core::Index3 away{middle[0] - 15, middle[1] - 10, middle[2]};
  QTest::mouseClick(&axial->view(), Qt::RightButton, Qt::NoModifier, widgetPoint(axial, g.indexToLps(away)));
  REQUIRE(waitFor(preview));
  CHECK(ai->pointCount() == 2);
  CHECK(axial->scene().shownClickPoints(true) == 1);
  CHECK(axial->scene().shownClickPoints(false) == 1);
  CHECK(coronal->scene().shownClickPoints(false) == 0);
  // For a look by eye: DELINEATE_SCREENSHOT_DIR=folder writes the window as it is now.
  if (const QByteArray shots = qgetenv("DELINEATE_SCREENSHOT_DIR"); !shots.isEmpty())
    window.grab().save(QString::fromLocal8Bit(shots) + "/click_markers.png");

  // The coronal and sagittal views moved onto the first point's planes show it there; the axial view a slice away
  // does not.
  coronal->scene().setCursor(g.indexToLps(seed));
  sagittal->scene().setCursor(g.indexToLps(seed));
  CHECK(coronal->scene().shownClickPoints(true) == 1);
  CHECK(sagittal->scene().shownClickPoints(true) == 1);
  CHECK(coronal->scene().shownClickPoints(false) == 0);
  axial->scene().scroll(2);
  CHECK(axial->scene().shownClickPoints(true) == 0);
  CHECK(axial->scene().shownClickPoints(false) == 0);
  axial->scene().scroll(-2);
  CHECK(axial->scene().shownClickPoints(true) == 1);

  // Backspace removes the last point's marker; Escape (discard) every marker.
  QTest::keyClick(&window, Qt::Key_Backspace);
  CHECK(ai->pointCount() == 1);
  CHECK(axial->scene().shownClickPoints(false) == 0);
  CHECK(axial->scene().shownClickPoints(true) == 1);
  QTest::keyClick(&window, Qt::Key_Escape);
  CHECK(ai->pointCount() == 0);
  for (SlicePanel* p : {axial, coronal, sagittal}) {
    CHECK(p->scene().shownClickPoints(true) == 0);
    CHECK_FALSE(p->scene().hasPreview());
  }
}

TEST_CASE("The preview colour: yellow over nothing, a far hue over any label colour", "[gui][ai]") {
  CHECK(viewer::contrastingPreviewColor({}) == core::Rgba{255, 220, 40, 255});
  for (const core::Rgba label : {core::Rgba{255, 0, 0, 255}, core::Rgba{255, 220, 40, 255}, core::Rgba{0, 230, 255, 255},
                                 core::Rgba{0, 255, 0, 255}, core::Rgba{128, 0, 255, 255}})
    CHECK(hueDistance(viewer::contrastingPreviewColor({label}), label) >= 90);
  // Greys have no hue: yellow stays.
  CHECK(viewer::contrastingPreviewColor({core::Rgba{128, 128, 128, 255}}) == core::Rgba{255, 220, 40, 255});
}

TEST_CASE("A second study of another size resets the 3D camera to frame it, with an orientation marker",
          "[gui][viewer]") {
  const auto mouse = test::sharedFile(kMouseImage);
  if (!mouse) return;
  test::guiApp();
  QuietWindow window(QSize(1200, 800));
  app::gui::SurfacePanel* panel = window.surfacePanel();
  open(window, test::kSampleCt);
  const Framing ct = framing(panel, window.document().session()->image().geometry());
  CHECK(ct.inside);
  CHECK(ct.cover > 0.3);
  CHECK(panel->scene().orientationMarkerShown());

  open(window, mouse->string());
  const core::Geometry& g = window.document().session()->image().geometry();
  Framing f = framing(panel, g);
  INFO("mouse box covers " << f.cover << " of the 3D view");
  if (const QByteArray shots = qgetenv("DELINEATE_SCREENSHOT_DIR"); !shots.isEmpty())
    window.grab().save(QString::fromLocal8Bit(shots) + "/mouse_after_ct.png");
  CHECK(f.inside);
  CHECK(f.cover > 0.3);
  CHECK(panel->scene().orientationMarkerShown());

  // Rotated and zoomed away, Home frames it again.
  panel->scene().rotate(120, 40);
  panel->scene().zoom(0.1);
  CHECK(framing(panel, g).cover < 0.2);
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  QTest::keyClick(&window, Qt::Key_Home);
  f = framing(panel, g);
  CHECK(f.inside);
  CHECK(f.cover > 0.3);
}

TEST_CASE("Volumes are written in a unit and with digits that fit their size", "[gui]") {
  using app::gui::formatVolumeMl;
  using app::gui::formatVolumeMm3;
  CHECK(formatVolumeMl(0.02) == QString::fromUtf8("20.0 mm\u00b3"));
  CHECK(formatVolumeMl(0.00012) == QString::fromUtf8("0.120 mm\u00b3"));
  CHECK(formatVolumeMm3(0.5) == QString::fromUtf8("0.500 mm\u00b3"));
  CHECK(formatVolumeMl(1.234) == QStringLiteral("1.23 mL"));
  CHECK(formatVolumeMl(12.34) == QStringLiteral("12.3 mL"));
  CHECK(formatVolumeMl(1534.4) == QStringLiteral("1534 mL"));
  CHECK(formatVolumeMl(0.9996) == QStringLiteral("1.00 mL"));
  CHECK(formatVolumeMm3(99.96) == QString::fromUtf8("100 mm\u00b3"));
  CHECK(formatVolumeMm3(0) == QString::fromUtf8("0 mm\u00b3"));
}

TEST_CASE("The labels dock shows every mouse structure's volume as a non-zero figure", "[gui]") {
  const auto image = test::sharedFile(kMouseImage);
  const auto labels = test::sharedFile(kMouseLabels);
  if (!image || !labels) return;
  test::guiApp();
  QuietWindow window(QSize(1200, 800));
  open(window, image->string(), labels->string());
  QTreeWidget* tree = window.labelPanel()->tree();
  int shown = 0, small = 0;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    const QString text = tree->topLevelItem(i)->text(LabelPanel::kVolume);
    if (text == "-") continue;
    ++shown;
    INFO(text.toStdString());
    CHECK(text.contains(QRegularExpression("[1-9]")));
    small += text.endsWith(QString::fromUtf8("mm\u00b3"));
  }
  CHECK(shown > 10);
  CHECK(small > 0);  // structures under 1 mL are given in mm³, not as "0.0"
}

TEST_CASE("The brush starts at a radius that fits the image's voxels and extent", "[gui]") {
  const auto mouse = test::sharedFile(kMouseImage);
  if (!mouse) return;
  test::guiApp();
  QuietWindow window(QSize(1200, 800));
  app::gui::EditTools* tools = window.editTools();
  open(window, test::kSampleCt);
  const auto ctSpacing = window.document().session()->image().geometry().spacingMm();
  const double ctFinest = std::min({ctSpacing[0], ctSpacing[1], ctSpacing[2]});
  const double ctRadius = tools->brushRadius();
  CHECK(ctRadius == Approx(app::gui::EditTools::defaultBrushRadius(window.document().session()->image().geometry())));
  CHECK(ctRadius >= ctFinest);
  CHECK(ctRadius <= 3.5 * ctFinest);

  open(window, mouse->string());
  const core::Geometry& g = window.document().session()->image().geometry();
  const auto& sp = g.spacingMm();
  const auto& d = g.dimensions();
  const double finest = std::min({sp[0], sp[1], sp[2]});
  const double smallestExtent = std::min({sp[0] * double(d[0]), sp[1] * double(d[1]), sp[2] * double(d[2])});
  const double radius = tools->brushRadius();
  INFO("mouse voxel " << finest << " mm, smallest extent " << smallestExtent << " mm, brush " << radius << " mm");
  CHECK(radius >= finest * 0.95);
  CHECK(radius <= 3.5 * finest);
  CHECK(radius <= smallestExtent / 15);
  // Proportional: the same number of voxels across on both images, where the extent does not cap it.
  CHECK(radius / finest == Approx(ctRadius / ctFinest).epsilon(0.2));
}
