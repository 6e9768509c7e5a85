// The PDF report (app/gui/pdf_report.h) on the bundled sample CT with its classic labels, read back with poppler's
// tools: pages rendered to PNG (pdftoppm), page count (pdfinfo) and text (pdftotext); the de-identified variant,
// key images and failed writes.
#include <catch2/catch.hpp>

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <unistd.h>

#include "app/gui/base/volume_text.h"
#include "app/gui/reports/pdf_report.h"
#include "app/gui/reports/study_exports.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/study/study_document.h"
#include "app/gui/study/study_loader.h"
#include "core/statistics.h"
#include "inference/engine.h"
#include "io/volume/image_file.h"
#include "tests/common/other_user.h"
#include "tests/gui/gui_fixtures.h"
#include "tests/gui_support/gui_app.h"

using namespace delineate;
using app::gui::PdfReportInput;

namespace {

struct Sample {
  core::ImageVolume image;
  core::LabelMap labels;
  core::LabelTable table;
};

Sample loadSample(const test::ScratchDir& dir) {
  auto image = io::readImageFile(test::kSampleCt);
  REQUIRE(image.ok());
  auto labels = io::readLabelFile(test::sampleLabels(dir));
  REQUIRE(labels.ok());
  return {std::move(image).value(), std::move(labels).value(), inference::createEngine("classic")->info().classes};
}

PdfReportInput reportInput(const Sample& s) {
  PdfReportInput in;
  in.image = &s.image;
  in.labels = &s.labels;
  in.table = &s.table;
  auto stats = core::computeLabelStatistics(s.labels, &s.image);
  REQUIRE(stats.ok());
  in.stats = *stats;
  in.isCt = true;
  in.studyTitle = QStringLiteral("Doe^Jane, ID 4711-XYZ, example_ct.nii.gz");
  in.seriesTitle = QStringLiteral("Thorax 2019-03-14 Doe");
  return in;
}

// Poppler's tools, or a skip (a failure under CI).
bool havePoppler() {
  if (!QStandardPaths::findExecutable(QStringLiteral("pdftoppm")).isEmpty() &&
      !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty() &&
      !QStandardPaths::findExecutable(QStringLiteral("pdfinfo")).isEmpty())
    return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") FAIL("poppler-utils (pdftoppm, pdftotext, pdfinfo) missing under CI");
  WARN("poppler-utils (pdftoppm, pdftotext, pdfinfo) missing: PDF read-back skipped (scripts/setup.sh installs it)");
  return false;
}

QString run(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  REQUIRE(p.waitForFinished(60000));
  INFO(program.toStdString() << ": " << p.readAllStandardError().toStdString());
  REQUIRE(p.exitCode() == 0);
  return QString::fromUtf8(p.readAllStandardOutput());
}

int pageCount(const QString& pdf) {
  const QString info = run(QStringLiteral("pdfinfo"), {pdf});
  for (const QString& line : info.split('\n'))
    if (line.startsWith(QStringLiteral("Pages:"))) return line.mid(6).trimmed().toInt();
  return -1;
}

QImage renderPage(const QString& pdf, int page, const QString& prefix) {
  run(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("50"),
                                   QStringLiteral("-f"), QString::number(page), QStringLiteral("-l"),
                                   QString::number(page), QStringLiteral("-singlefile"), pdf, prefix});
  QImage png(prefix + QStringLiteral(".png"));
  REQUIRE(!png.isNull());
  return png.convertToFormat(QImage::Format_RGB32);
}

bool near(QRgb a, QColor b, int tol) {
  return std::abs(qRed(a) - b.red()) <= tol && std::abs(qGreen(a) - b.green()) <= tol &&
         std::abs(qBlue(a) - b.blue()) <= tol;
}

int pixelsNear(const QImage& img, QColor c, int tol) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) n += near(img.pixel(x, y), c, tol);
  return n;
}

QColor colorOf(const core::LabelTable& table, core::Label id) {
  const core::Rgba c = table.find(id) != nullptr ? table.find(id)->color : core::LabelTable::defaultColor(id);
  return QColor(c.r, c.g, c.b);
}

// A pixel of the 50 % overlay of `c` over grey: what is left after taking half the colour is grey.
bool overlaid(QRgb p, QColor c) {
  const double r = qRed(p) - 0.5 * c.red(), g = qGreen(p) - 0.5 * c.green(), b = qBlue(p) - 0.5 * c.blue();
  return std::min({r, g, b}) >= -6 && std::max({r, g, b}) <= 134 && std::max({r, g, b}) - std::min({r, g, b}) <= 12;
}

}  // namespace

TEST_CASE("PDF report of the sample: table, key images and page numbers", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_report");
  const Sample sample = loadSample(dir);
  const PdfReportInput in = reportInput(sample);
  std::set<core::Label> ids;
  for (const auto& s : in.stats) ids.insert(s.label);
  REQUIRE(ids.count(200) == 1);
  REQUIRE(ids.count(201) == 1);
  REQUIRE(ids.count(202) == 1);

  const QString pdf = QString::fromStdString((dir / "report.pdf").string());
  const core::Status written = app::gui::writePdfReport(pdf, in);
  INFO((written.ok() ? std::string() : written.error().describe()));
  REQUIRE(written.ok());
  REQUIRE(QFile(pdf).size() > 1000);
  if (!havePoppler()) return;

  const int expected = app::gui::pdfReportPageCount(in.stats.size());
  CHECK(expected == 1 + static_cast<int>((in.stats.size() + app::gui::kPdfKeyImageLabelsPerPage - 1) /
                                         app::gui::kPdfKeyImageLabelsPerPage));
  CHECK(pageCount(pdf) == expected);

  const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
  for (const auto& s : in.stats) {
    const core::LabelEntry* e = sample.table.find(s.label);
    if (e != nullptr) CHECK(text.contains(QString::fromStdString(e->name)));
    CHECK(text.contains(app::gui::formatVolumeMl(s.volumeMl)));
    // The table's row carries the whole numbers (nothing elided): voxels and volume on one line.
    bool row = false;
    for (const QString& line : text.split('\n'))
      row = row || (line.contains(QStringLiteral(" %1 ").arg(s.voxelCount)) && line.contains(app::gui::formatVolumeMl(s.volumeMl)));
    INFO("label " << s.label);
    CHECK(row);
  }
  CHECK(text.contains(QStringLiteral("Page 1 of %1").arg(expected)));
  CHECK(text.contains(QStringLiteral("Page %1 of %1").arg(expected)));
  CHECK(text.contains(QStringLiteral("Doe^Jane")));
  CHECK(text.contains(QStringLiteral("Key images")));

  const QImage page1 = renderPage(pdf, 1, QString::fromStdString((dir / "page1").string()));
  const QImage page2 = renderPage(pdf, 2, QString::fromStdString((dir / "page2").string()));
  // Kept for a look: <build>/test-output/pdf_report_page{1,2}.png and the PDF itself.
  const std::filesystem::path out = std::filesystem::path(DELINEATE_BINARY_DIR) / "test-output";
  std::filesystem::create_directories(out);
  page1.save(QString::fromStdString((out / "pdf_report_page1.png").string()));
  page2.save(QString::fromStdString((out / "pdf_report_page2.png").string()));
  std::filesystem::copy_file(dir / "report.pdf", out / "pdf_report.pdf", std::filesystem::copy_options::overwrite_existing);
  for (const QImage* page : {&page1, &page2}) {
    int ink = 0;
    std::set<QRgb> colours;
    for (int y = 0; y < page->height(); ++y)
      for (int x = 0; x < page->width(); ++x) {
        const QRgb p = page->pixel(x, y);
        ink += qRed(p) < 235 || qGreen(p) < 235 || qBlue(p) < 235;
        colours.insert(p & 0xF0F0F0);
      }
    CHECK(ink > 2000);
    CHECK(colours.size() > 20);
  }
  // The table's colour swatches on page 1, exactly the table's colours (anti-aliased edges aside).
  for (core::Label id : {core::Label(200), core::Label(201), core::Label(202)}) {
    INFO("label " << id);
    CHECK(pixelsNear(page1, colorOf(sample.table, id), 12) >= 6);
  }
  // The key images: every label's overlay somewhere on the first key-image page.
  for (core::Label id : {core::Label(200), core::Label(201)}) {
    INFO("label " << id);
    int n = 0;
    for (int y = 0; y < page2.height(); ++y)
      for (int x = 0; x < page2.width(); ++x) n += overlaid(page2.pixel(x, y), colorOf(sample.table, id));
    CHECK(n > 50);
  }
}

TEST_CASE("PDF report table continues over pages", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_report_long");
  const Sample sample = loadSample(dir);
  PdfReportInput in = reportInput(sample);
  // 45 rows: the sample's labels and made-up ones (absent from the map: their key images show no overlay).
  std::vector<core::LabelStatistics> rows = in.stats;
  for (core::Label id = 1000; rows.size() < 45; ++id) {
    core::LabelStatistics s = in.stats.front();
    s.label = id;
    rows.push_back(s);
  }
  in.stats = rows;
  const int expected = app::gui::pdfReportPageCount(rows.size());
  CHECK(expected == 2 + 15);
  const QString pdf = QString::fromStdString((dir / "long.pdf").string());
  REQUIRE(app::gui::writePdfReport(pdf, in).ok());
  if (!havePoppler()) return;
  CHECK(pageCount(pdf) == expected);
  const QString text = run(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
  CHECK(text.contains(QStringLiteral("Label statistics (continued)")));
  CHECK(text.contains(QStringLiteral("Page 2 of 17")));
  CHECK(text.contains(QStringLiteral("Page 17 of 17")));
  CHECK(text.contains(QStringLiteral("label 1040")));  // ids the table lacks get a name
}

TEST_CASE("A new PDF report is 0640 under umask 022: others cannot read it, a replaced one keeps its mode",
          "[gui][pdf][modes]") {
  test::guiApp();
  const test::UmaskScope umask(022);
  test::ScratchDir dir("pdf_report_mode");
  const Sample sample = loadSample(dir);
  const PdfReportInput in = reportInput(sample);
  const std::filesystem::path pdf = dir / "report.pdf";
  REQUIRE(app::gui::writePdfReport(QString::fromStdString(pdf.string()), in).ok());
  CHECK(test::modeOf(pdf) == 0640);
  REQUIRE(::chmod(pdf.c_str(), 0600) == 0);
  REQUIRE(app::gui::writePdfReport(QString::fromStdString(pdf.string()), in).ok());
  CHECK(test::modeOf(pdf) == 0600);
  auto other = test::otherUser();
  if (!other) return;
  test::openToOthers(dir.path());
  std::filesystem::remove(pdf);
  REQUIRE(app::gui::writePdfReport(QString::fromStdString(pdf.string()), in).ok());
  CHECK_FALSE(test::canRead(*other, pdf));
}

TEST_CASE("De-identified PDF report names no patient, file or date", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_report_deid");
  const Sample sample = loadSample(dir);
  PdfReportInput in = reportInput(sample);
  in.deidentified = true;
  const QString pdf = QString::fromStdString((dir / "deid.pdf").string());
  const core::Status written = app::gui::writePdfReport(pdf, in);
  REQUIRE(written.ok());
  QFile f(pdf);
  REQUIRE(f.open(QIODevice::ReadOnly));
  QByteArray bytes = f.readAll();
  // The cross-reference table's ten-digit byte offsets can spell any year ("0000320195"): they are no content.
  const qsizetype xref = bytes.lastIndexOf("\nxref");
  const qsizetype trailer = bytes.indexOf("trailer", xref);
  if (xref >= 0 && trailer > xref) bytes.remove(xref, trailer - xref);
  // Nothing in the file itself: metadata, XMP and uncompressed text alike.
  for (const char* secret : {"Doe", "4711", "example_ct", "2019", "CreationDate", "CreateDate", "ModifyDate"}) {
    INFO(secret);
    CHECK(!bytes.contains(secret));
  }
  const QByteArray year = QByteArray::number(QDate::currentDate().year());
  CHECK(!bytes.contains("D:" + year));
  CHECK(!bytes.contains(year + "-"));
  if (!havePoppler()) return;
  const QString text = run(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
  INFO(text.toStdString());
  CHECK(text.contains(QStringLiteral("De-identified report")));
  for (const QString& secret : {QStringLiteral("Doe"), QStringLiteral("Jane"), QStringLiteral("4711"),
                                QStringLiteral("example_ct"), QStringLiteral("Thorax"), QStringLiteral("2019"),
                                QString::fromLatin1(year), QStringLiteral("Report date")}) {
    INFO(secret.toStdString());
    CHECK(!text.contains(secret));
  }
  const QString info = run(QStringLiteral("pdfinfo"), {pdf});
  CHECK(!info.contains(QStringLiteral("Doe")));
  CHECK(!info.contains(QStringLiteral("CreationDate")));
  CHECK(!info.contains(QString::fromLatin1(year)));
  CHECK(text.contains(QStringLiteral("Page 1 of")));
}

TEST_CASE("Key image of the left lung: its colour at the centroid, the physical aspect", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_key_image");
  const Sample sample = loadSample(dir);
  const PdfReportInput in = reportInput(sample);
  const core::LabelStatistics* lung = nullptr;
  for (const auto& s : in.stats)
    if (s.label == 201) lung = &s;
  REQUIRE(lung != nullptr);
  const core::Geometry& g = sample.labels.geometry();
  // The sample is an axial stack: index axes along the patient axes (signs checked below).
  const core::Mat3& d = g.direction();
  for (int a = 0; a < 3; ++a) REQUIRE(std::abs(d(a, a)) > 0.99);

  const QImage axial = app::gui::renderKeyImage(in, 201, 0, 300);
  REQUIRE(!axial.isNull());
  const core::Vec3 n{static_cast<double>(g.dimensions()[0]), static_cast<double>(g.dimensions()[1]),
                     static_cast<double>(g.dimensions()[2])};
  const core::Vec3& sp = g.spacingMm();
  const double aspect = (n[0] * sp[0]) / (n[1] * sp[1]);
  CHECK(std::max(axial.width(), axial.height()) == 300);
  CHECK(static_cast<double>(axial.width()) / axial.height() == Approx(aspect).epsilon(0.02));

  // Where the centroid lands: +x (patient left) to the right, +y (posterior) down.
  const core::Vec3 c = g.lpsToIndex(lung->centroidLps);
  const double u = ((d(0, 0) > 0 ? c[0] : n[0] - 1 - c[0]) + 0.5) / n[0];
  const double v = ((d(1, 1) > 0 ? c[1] : n[1] - 1 - c[1]) + 0.5) / n[1];
  const int px = static_cast<int>(u * axial.width()), py = static_cast<int>(v * axial.height());
  // The patient's left is on the image's right.
  CHECK(px > axial.width() / 2);
  // The lung near the centroid (a crescent at the lung base here, its centroid just outside it), and the left lung
  // on the image's right.
  const QColor colour = colorOf(sample.table, 201);
  int hits = 0, rightHalf = 0, all = 0;
  for (int y = 0; y < axial.height(); ++y)
    for (int x = 0; x < axial.width(); ++x) {
      if (!overlaid(axial.pixel(x, y), colour)) continue;
      ++all;
      rightHalf += x >= axial.width() / 2;
      hits += std::abs(x - px) <= 30 && std::abs(y - py) <= 30;
    }
  INFO("centroid pixel " << px << "," << py << " of " << axial.width() << "x" << axial.height());
  CHECK(hits >= 20);
  CHECK(rightHalf > 0.9 * all);
  // Coronal and sagittal have their own aspect (superior up; slices are thicker than pixels).
  const QImage coronal = app::gui::renderKeyImage(in, 201, 1, 300);
  REQUIRE(!coronal.isNull());
  CHECK(static_cast<double>(coronal.width()) / coronal.height() == Approx((n[0] * sp[0]) / (n[2] * sp[2])).epsilon(0.02));
  const QImage sagittal = app::gui::renderKeyImage(in, 201, 2, 300);
  REQUIRE(!sagittal.isNull());
  CHECK(static_cast<double>(sagittal.width()) / sagittal.height() ==
        Approx((n[1] * sp[1]) / (n[2] * sp[2])).epsilon(0.02));
  CHECK(app::gui::renderKeyImage(in, 999, 0).isNull());
  CHECK(app::gui::renderKeyImage(in, 201, 3).isNull());
}

TEST_CASE("PDF report into a missing folder fails naming it, an existing file stays as it was", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_report_fail");
  const Sample sample = loadSample(dir);
  const PdfReportInput in = reportInput(sample);
  const QString missing = QString::fromStdString((dir / "no_such_folder" / "report.pdf").string());
  const core::Status failed = app::gui::writePdfReport(missing, in);
  REQUIRE(!failed.ok());
  CHECK(failed.error().describe().find("no_such_folder") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "no_such_folder"));

  // Refused input (an image on another grid) never touches the file at the path.
  const std::filesystem::path existing = dir / "existing.pdf";
  test::writeTextFile(existing, "previous report");
  auto other = core::ImageVolume::create(core::Geometry({4, 4, 4}, {1, 1, 1}, {0, 0, 0}), 0.0f);
  REQUIRE(other.ok());
  PdfReportInput mismatched = in;
  mismatched.image = &*other;
  const core::Status refusedInput = app::gui::writePdfReport(QString::fromStdString(existing.string()), mismatched);
  REQUIRE(!refusedInput.ok());
  CHECK(refusedInput.error().describe().find("existing.pdf") != std::string::npos);
  CHECK(test::readTextFile(existing) == "previous report");

  // A read-only folder: the existing report stays byte for byte (no temp file left either).
  const std::filesystem::path ro = dir / "readonly";
  std::filesystem::create_directories(ro);
  test::writeTextFile(ro / "report.pdf", "previous report");
  std::filesystem::permissions(ro, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const core::Status refused = app::gui::writePdfReport(QString::fromStdString((ro / "report.pdf").string()), in);
  std::filesystem::permissions(ro, std::filesystem::perms::owner_all);
  if (::geteuid() != 0) {  // root writes anywhere
    CHECK(!refused.ok());
    if (!refused.ok()) CHECK(refused.error().describe().find("report.pdf") != std::string::npos);
    CHECK(test::readTextFile(ro / "report.pdf") == "previous report");
    CHECK(std::distance(std::filesystem::directory_iterator(ro), std::filesystem::directory_iterator()) == 1);
  }
}

TEST_CASE("Key images show a structure at its largest cross-section, not at its centroid", "[gui][pdf]") {
  // Issue 23: a curved or split structure can have no voxel on its centroid's slice, and its key image showed
  // nothing of it. Here a large disc on axial slice 4 and a small one on slice 24: the centroid's slice (about 6)
  // holds none of the label.
  test::guiApp();
  const core::Geometry g({40, 40, 30}, {1, 1, 1}, {0, 0, 0});
  auto vol = core::Volume<core::Label>::create(g, 0).value();
  for (std::int64_t j = 0; j < 40; ++j)
    for (std::int64_t i = 0; i < 40; ++i) {
      const double x = static_cast<double>(i) - 19.5, y = static_cast<double>(j) - 19.5;
      if (x * x + y * y <= 12.0 * 12.0) vol.at({i, j, 4}) = 5;
      if (x * x + y * y <= 3.0 * 3.0) vol.at({i, j, 24}) = 5;
    }
  const core::LabelMap labels(std::move(vol));
  auto image = core::ImageVolume::create(g, 40.0f).value();
  PdfReportInput in;
  in.image = &image;
  in.labels = &labels;
  auto stats = core::computeLabelStatistics(labels, &image);
  REQUIRE(stats.ok());
  in.stats = *stats;
  in.isCt = true;
  const core::Vec3 c = g.lpsToIndex(in.stats.front().centroidLps);
  REQUIRE(std::llround(c[2]) > 4);
  REQUIRE(std::llround(c[2]) < 24);
  const QImage axial = app::gui::renderKeyImage(in, 5, 0, 200);
  REQUIRE(!axial.isNull());
  const QColor colour = colorOf(core::LabelTable{}, 5);
  int pixels = 0;
  for (int y = 0; y < axial.height(); ++y)
    for (int x = 0; x < axial.width(); ++x) pixels += overlaid(axial.pixel(x, y), colour) ? 1 : 0;
  // The large disc: pi 12^2 of 40^2 voxels, about 28% of the image.
  CHECK(pixels > axial.width() * axial.height() / 5);
}

TEST_CASE("PDF report writes a small structure's volume in mm3, as the labels dock does", "[gui][pdf]") {
  test::guiApp();
  test::ScratchDir dir("pdf_report_small");
  const Sample sample = loadSample(dir);
  PdfReportInput in = reportInput(sample);
  REQUIRE(!in.stats.empty());
  in.stats.front().volumeMl = 0.02;  // a mouse structure's size
  const QString pdf = QString::fromStdString((dir / "small.pdf").string());
  REQUIRE(app::gui::writePdfReport(pdf, in).ok());
  if (!havePoppler()) return;
  const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
  CHECK(app::gui::formatVolumeMl(0.02) == QString::fromUtf8("20.0 mm\u00b3"));
  // In the table and in the key image's title.
  CHECK(text.count(QString::fromUtf8("20.0 mm\u00b3")) >= 2);
}


// Issue 41: the header's "Study:" line printed the series (its UID and number). A DICOM study opened in the window:
// the Study line names the Study Instance UID, the Series line the Series Instance UID, neither the other's.
TEST_CASE("PDF report of a DICOM study: the Study line names the study, the series has its own line", "[gui][pdf]") {
  const auto folder = test::sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!folder || !havePoppler()) return;
  test::guiApp();
  test::ScratchDir dir("gui-pdf-study-line");
  test::QuietWindow window;
  QSignalSpy loaded(&window, &app::gui::MainWindow::surfacesReady);
  REQUIRE(window.loader().openDicomFolder(QString::fromStdString(folder->string())));
  REQUIRE(test::waitFor(loaded));
  const io::DicomSeries* series = window.document().dicomSource();
  REQUIRE(series != nullptr);
  const QString studyUid = QString::fromStdString(series->studyInstanceUid);
  const QString seriesUid = QString::fromStdString(series->seriesInstanceUid);
  REQUIRE(!studyUid.isEmpty());
  REQUIRE(studyUid != seriesUid);
  const QString pdf = QString::fromStdString((dir / "report.pdf").string());
  REQUIRE(window.exports().exportPdfReport(pdf, false));  // no labels yet: the header and an empty table
  const QStringList lines = run(QStringLiteral("pdftotext"), {QStringLiteral("-l"), QStringLiteral("1"), pdf,
                                                             QStringLiteral("-")}).split('\n');
  QString studyLine, seriesLine;
  for (const QString& line : lines) {
    if (line.startsWith(QStringLiteral("Study:"))) studyLine = line;
    if (line.startsWith(QStringLiteral("Series:"))) seriesLine = line;
  }
  INFO(lines.join('\n').toStdString());
  CHECK(studyLine.contains(studyUid));
  CHECK_FALSE(studyLine.contains(seriesUid));
  CHECK(seriesLine.contains(seriesUid));
}
