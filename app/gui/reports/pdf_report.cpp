#include "app/gui/reports/pdf_report.h"

#include "app/gui/base/volume_text.h"
#include "app/gui/base/window_level.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFont>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>

namespace delineate::app::gui {

namespace {

struct Window {
  double low = 0, high = 1;
};

// Soft tissue for CT; else the 1st..99th percentile of (at most about a million) finite voxels.
Window reportWindow(const PdfReportInput& input) {
  if (input.isCt) return {40 - 200, 40 + 200};
  if (!input.image || input.image.size() == 0) return {0, 1};
  std::vector<float> values = sampleValues(input.image);
  if (values.empty()) return {0, 1};
  Window w{sampledQuantile(values, 0.01), sampledQuantile(values, 0.99)};
  if (!(w.high > w.low)) w = {w.low - 0.5, w.low + 0.5};
  return w;
}

QColor labelColor(const PdfReportInput& input, core::Label id) {
  const core::LabelEntry* e = input.table != nullptr ? input.table->find(id) : nullptr;
  const core::Rgba c = e != nullptr ? e->color : core::LabelTable::defaultColor(id);
  return QColor(c.r, c.g, c.b);
}

QString labelName(const PdfReportInput& input, core::Label id) {
  if (const core::LabelEntry* e = input.table != nullptr ? input.table->find(id) : nullptr; e != nullptr)
    return QString::fromStdString(e->name);
  return QCoreApplication::translate("delineate::app::gui::PdfReport", "label %1").arg(id);
}

const core::LabelStatistics* findStats(const PdfReportInput& input, core::Label id) {
  for (const core::LabelStatistics& s : input.stats)
    if (s.label == id) return &s;
  return nullptr;
}

// Which index axis points closest to each patient (LPS) axis, and whether it points along (+1) or against (-1) it.
struct AxisMap {
  std::array<int, 3> axis{0, 1, 2};
  std::array<int, 3> sign{1, 1, 1};
  bool known = true;  // false: too oblique to tell, index order as is
};

AxisMap axisMap(const core::Geometry& g) {
  AxisMap m;
  std::array<bool, 3> used{false, false, false};
  for (int a = 0; a < 3; ++a) {
    int best = 0;
    for (int p = 1; p < 3; ++p)
      if (std::abs(g.direction()(p, a)) > std::abs(g.direction()(best, a))) best = p;
    if (used[static_cast<std::size_t>(best)]) return AxisMap{{0, 1, 2}, {1, 1, 1}, false};  // oblique beyond telling
    used[static_cast<std::size_t>(best)] = true;
    m.axis[static_cast<std::size_t>(best)] = a;
    m.sign[static_cast<std::size_t>(best)] = g.direction()(best, a) < 0 ? -1 : 1;
  }
  return m;
}

struct SliceInfo {
  int normalAxis = 2;       // index axis across the slice
  std::int64_t slice = 0;   // its index
  std::int64_t count = 1;   // slices along it
};

// For each of `labels`, the index along each index axis of the slice where it has the most voxels (its largest
// cross-section; the lowest such index on ties), in one pass over the map. -1 where a label has no voxel.
std::map<core::Label, std::array<std::int64_t, 3>> largestSections(const core::LabelMap& map,
                                                                   const std::vector<core::Label>& labels) {
  const core::Size3& d = map.geometry().dimensions();
  std::vector<std::int32_t> row(65536, -1);
  for (std::size_t r = 0; r < labels.size(); ++r) row[labels[r]] = static_cast<std::int32_t>(r);
  std::array<std::vector<std::int64_t>, 3> count;
  for (std::size_t a = 0; a < 3; ++a) count[a].assign(labels.size() * static_cast<std::size_t>(d[a]), 0);
  std::size_t at = 0;
  for (std::int64_t k = 0; k < d[2]; ++k)
    for (std::int64_t j = 0; j < d[1]; ++j)
      for (std::int64_t i = 0; i < d[0]; ++i, ++at) {
        const std::int32_t r = row[map[at]];
        if (r < 0 || map[at] == 0) continue;
        const auto ru = static_cast<std::size_t>(r);
        ++count[0][ru * static_cast<std::size_t>(d[0]) + static_cast<std::size_t>(i)];
        ++count[1][ru * static_cast<std::size_t>(d[1]) + static_cast<std::size_t>(j)];
        ++count[2][ru * static_cast<std::size_t>(d[2]) + static_cast<std::size_t>(k)];
      }
  std::map<core::Label, std::array<std::int64_t, 3>> out;
  for (std::size_t r = 0; r < labels.size(); ++r) {
    std::array<std::int64_t, 3> best{-1, -1, -1};
    for (std::size_t a = 0; a < 3; ++a) {
      std::int64_t most = 0;
      for (std::int64_t s = 0; s < d[a]; ++s)
        if (const std::int64_t c = count[a][r * static_cast<std::size_t>(d[a]) + static_cast<std::size_t>(s)]; c > most) {
          most = c;
          best[a] = s;
        }
    }
    out[labels[r]] = best;
  }
  return out;
}

// The orientation's slice through the label's largest cross-section (`sections`: per index axis, as
// largestSections gives; computed here when null), or a null image. See renderKeyImage for the conventions.
QImage renderKey(const PdfReportInput& input, const Window& window, core::Label label, int orientation, int maxSize,
                 SliceInfo* info = nullptr, const std::array<std::int64_t, 3>* sections = nullptr) {
  if (input.labels == nullptr || input.labels->voxels().empty() || orientation < 0 || orientation > 2 || maxSize < 1)
    return {};
  const core::LabelStatistics* stats = findStats(input, label);
  if (stats == nullptr) return {};
  const core::Geometry& g = input.labels->geometry();
  const core::ImageView image =
      input.image && input.image.geometry().dimensions() == g.dimensions() ? input.image : core::ImageView{};
  const AxisMap map = axisMap(g);
  // Patient axes (0 x: left, 1 y: posterior, 2 z: superior) across, horizontal and vertical per orientation.
  static constexpr std::array<std::array<int, 3>, 3> kAxes{{{2, 0, 1}, {1, 0, 2}, {0, 1, 2}}};
  const auto& axes = kAxes[static_cast<std::size_t>(orientation)];
  const int n = map.axis[static_cast<std::size_t>(axes[0])];
  const int h = map.axis[static_cast<std::size_t>(axes[1])];
  const int v = map.axis[static_cast<std::size_t>(axes[2])];
  const bool flipH = map.sign[static_cast<std::size_t>(axes[1])] < 0;  // +x and +y run to the right
  // Axial: posterior (+y) down; coronal and sagittal: superior (+z) up.
  const bool flipV = axes[2] == 2 ? map.sign[2] > 0 : map.sign[1] < 0;
  const core::Size3& dims = g.dimensions();
  const std::int64_t nh = dims[static_cast<std::size_t>(h)], nv = dims[static_cast<std::size_t>(v)];
  // The slice with the most of the label: a centroid slice misses curved and hollow structures (it can hold none).
  const std::array<std::int64_t, 3> best =
      sections != nullptr ? *sections : largestSections(*input.labels, {label}).at(label);
  std::int64_t slice = best[static_cast<std::size_t>(n)];
  if (slice < 0) {
    const core::Vec3 centre = g.lpsToIndex(stats->centroidLps);
    slice = std::clamp<std::int64_t>(std::llround(centre[static_cast<std::size_t>(n)]), 0,
                                     dims[static_cast<std::size_t>(n)] - 1);
  }
  if (info != nullptr) *info = {n, slice, dims[static_cast<std::size_t>(n)]};

  QImage native(static_cast<int>(nh), static_cast<int>(nv), QImage::Format_RGB32);
  const QColor own = labelColor(input, label);
  const double scale = 255.0 / (window.high - window.low);
  core::Index3 ijk{0, 0, 0};
  ijk[static_cast<std::size_t>(n)] = slice;
  for (std::int64_t row = 0; row < nv; ++row) {
    auto* line = reinterpret_cast<QRgb*>(native.scanLine(static_cast<int>(row)));
    ijk[static_cast<std::size_t>(v)] = flipV ? nv - 1 - row : row;
    for (std::int64_t col = 0; col < nh; ++col) {
      ijk[static_cast<std::size_t>(h)] = flipH ? nh - 1 - col : col;
      const std::size_t at = g.linearIndex(ijk);
      double grey = 0;
      if (image) {
        const double value = image.value(at);
        grey = std::isfinite(value) ? std::clamp((value - window.low) * scale, 0.0, 255.0) : 0.0;
      }
      double r = grey, gr = grey, b = grey;
      if (const core::Label l = (*input.labels)[at]; l != 0) {
        const QColor c = l == label ? own : labelColor(input, l);
        const double alpha = l == label ? 0.5 : 0.15;
        r = (1 - alpha) * r + alpha * c.red();
        gr = (1 - alpha) * gr + alpha * c.green();
        b = (1 - alpha) * b + alpha * c.blue();
      }
      line[col] = qRgb(static_cast<int>(std::lround(r)), static_cast<int>(std::lround(gr)), static_cast<int>(std::lround(b)));
    }
  }
  const core::Vec3& sp = g.spacingMm();
  const double widthMm = static_cast<double>(nh) * sp[static_cast<std::size_t>(h)];
  const double heightMm = static_cast<double>(nv) * sp[static_cast<std::size_t>(v)];
  const double s = maxSize / std::max(widthMm, heightMm);
  const int w = std::max(1, static_cast<int>(std::lround(widthMm * s)));
  const int ht = std::max(1, static_cast<int>(std::lround(heightMm * s)));
  return native.scaled(w, ht, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
}

QString number(double value, int decimals) {
  return std::isfinite(value) ? QString::number(value, 'f', decimals) : QStringLiteral("\u2013");
}

// Blanks an entry of the PDF's Info dictionary ("/CreationDate (D:...)") with spaces, keeping every byte offset.
void blankInfoEntry(QByteArray& pdf, const QByteArray& key) {
  for (qsizetype at = pdf.indexOf(key); at >= 0; at = pdf.indexOf(key, at + 1)) {
    const qsizetype open = pdf.indexOf('(', at);
    const qsizetype close = open >= 0 ? pdf.indexOf(')', open) : -1;
    if (close < 0 || open - at > key.size() + 2) continue;
    for (qsizetype i = at; i <= close; ++i) pdf[i] = ' ';
  }
}

// Millimetres to device pixels at the writer's resolution.
constexpr int kDpi = 300;
constexpr double mm(double v) { return v * kDpi / 25.4; }

constexpr double kPageW = 210, kPageH = 297, kMargin = 15;
constexpr double kContentW = kPageW - 2 * kMargin;
constexpr double kHeaderH = 42, kSectionH = 8, kTableHeadH = 8, kRowH = 6;
constexpr double kKeyTitleH = 6, kKeyBoxH = 56, kKeyCaptionH = 5, kKeyGap = 6, kKeyBoxGap = 4;

struct Columns {
  // swatch, id, name, voxels, volume, mean, std, min, max, median, diameter (mm)
  static constexpr std::array<double, 11> kWidth{6, 10, 43, 18, 18, 14, 13, 14, 14, 14, 16};
};

class ReportPainter {
  Q_DECLARE_TR_FUNCTIONS(delineate::app::gui::PdfReport)

 public:
  ReportPainter(QPainter& p, const PdfReportInput& in, int pages) : m_p(p), m_in(in), m_pages(pages) {}
  // Each label's largest cross-sections (largestSections), for the key images.
  void setSections(const std::map<core::Label, std::array<std::int64_t, 3>>* sections) { m_sections = sections; }

  void footer(int page) {
    setFont(8);
    m_p.setPen(Qt::darkGray);
    const QRectF r(mm(kMargin), mm(kPageH - kMargin - 5), mm(kContentW), mm(5));
    m_p.drawText(r, Qt::AlignCenter, tr("Page %1 of %2").arg(page).arg(m_pages));
    m_p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Delineate"));
    m_p.setPen(Qt::black);
  }

  double header() {
    double y = kMargin;
    setFont(16, true);
    text(y, 10, m_in.deidentified ? tr("De-identified report") : tr("Segmentation report"));
    y += 10;
    setFont(10);
    if (!m_in.deidentified) {
      if (!m_in.patientTitle.isEmpty()) fittedText(y, 4.5, tr("Patient: %1").arg(m_in.patientTitle)), y += 4.5;
      if (!m_in.studyTitle.isEmpty()) fittedText(y, 4.5, tr("Study: %1").arg(m_in.studyTitle)), y += 4.5;
      if (!m_in.seriesTitle.isEmpty()) fittedText(y, 4.5, tr("Series: %1").arg(m_in.seriesTitle)), y += 4.5;
      text(y, 4.5, tr("Report date: %1").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")))),
          y += 4.5;
    }
    if (const core::ImageView image = m_in.image) {
      const core::Size3& d = image.geometry().dimensions();
      const core::Vec3& s = image.geometry().spacingMm();
      text(y, 5, tr("Image: %1 \u00d7 %2 \u00d7 %3 voxels of %4 \u00d7 %5 \u00d7 %6 mm%7")
                     .arg(d[0]).arg(d[1]).arg(d[2])
                     .arg(s[0], 0, 'g', 4).arg(s[1], 0, 'g', 4).arg(s[2], 0, 'g', 4)
                     .arg(m_in.isCt ? tr(", intensities in HU") : QString()));
      y += 5;
    }
    const QString version = QCoreApplication::applicationVersion();
    text(y, 5, version.isEmpty() ? tr("Software: Delineate") : tr("Software: Delineate %1").arg(version));
    m_p.setPen(QPen(Qt::gray, mm(0.3)));
    m_p.drawLine(QPointF(mm(kMargin), mm(kMargin + kHeaderH - 3)), QPointF(mm(kPageW - kMargin), mm(kMargin + kHeaderH - 3)));
    m_p.setPen(Qt::black);
    return kMargin + kHeaderH;
  }

  // Rows [first, last) of the table from y (mm).
  void table(double y, std::size_t first, std::size_t last) {
    setFont(12, true);
    text(y, kSectionH, first == 0 ? tr("Label statistics") : tr("Label statistics (continued)"));
    y += kSectionH;
    const QString unit = m_in.isCt ? tr(" (HU)") : QString();
    const std::array<QString, 11> heads{QString(), tr("ID"), tr("Name"), tr("Voxels"), tr("Volume"),
                                        tr("Mean") + unit, tr("SD") + unit, tr("Min") + unit, tr("Max") + unit,
                                        tr("Median") + unit, tr("Longest diameter (mm)")};
    setFont(6.5, true);
    m_p.fillRect(QRectF(mm(kMargin), mm(y), mm(kContentW), mm(kTableHeadH)), QColor(225, 228, 235));
    row(y, kTableHeadH, heads, Qt::TextWordWrap);
    y += kTableHeadH;
    setFont(7.5);
    for (std::size_t i = first; i < last; ++i) {
      const core::LabelStatistics& s = m_in.stats[i];
      if ((i - first) % 2 == 1) m_p.fillRect(QRectF(mm(kMargin), mm(y), mm(kContentW), mm(kRowH)), QColor(245, 246, 248));
      const std::array<QString, 11> cells{QString(), QString::number(s.label), labelName(m_in, s.label),
                                          QString::number(s.voxelCount), formatVolumeMl(s.volumeMl), number(s.mean, 1),
                                          number(s.stddev, 1), number(s.min, 1), number(s.max, 1), number(s.median, 1),
                                          number(s.longestDiameterMm, 1)};
      row(y, kRowH, cells, 0);
      const QRectF swatch(mm(kMargin + 1), mm(y + 1.2), mm(Columns::kWidth[0] - 2), mm(kRowH - 2.4));
      m_p.fillRect(swatch, labelColor(m_in, s.label));
      m_p.setPen(QPen(Qt::black, mm(0.1)));
      m_p.drawRect(swatch);
      y += kRowH;
    }
    if (m_in.stats.empty()) text(y, kRowH, tr("No labels."));
  }

  // The patient directions at the edges of a key image (radiological display, see renderKeyImage): left, right,
  // top, bottom. An image whose axes are too oblique to name gets none.
  void orientationLetters(const QRectF& r, int orientation) {
    if (m_in.labels == nullptr) return;
    if (!axisMap(m_in.labels->geometry()).known) return;  // the letters would be guesses
    static constexpr std::array<std::array<const char*, 4>, 3> kLetters{
        {{"R", "L", "A", "P"}, {"R", "L", "S", "I"}, {"A", "P", "S", "I"}}};
    const auto& l = kLetters[static_cast<std::size_t>(orientation)];
    setFont(7, true);
    m_p.setPen(QColor(255, 220, 0));
    const double pad = mm(1), w = mm(4);
    m_p.drawText(QRectF(r.left() + pad, r.center().y() - w / 2, w, w), Qt::AlignLeft | Qt::AlignVCenter, l[0]);
    m_p.drawText(QRectF(r.right() - pad - w, r.center().y() - w / 2, w, w), Qt::AlignRight | Qt::AlignVCenter, l[1]);
    m_p.drawText(QRectF(r.center().x() - w / 2, r.top() + pad, w, w), Qt::AlignHCenter | Qt::AlignTop, l[2]);
    m_p.drawText(QRectF(r.center().x() - w / 2, r.bottom() - pad - w, w, w), Qt::AlignHCenter | Qt::AlignBottom, l[3]);
    m_p.setPen(Qt::black);
  }

  // Key images of rows [first, last) of the statistics.
  void keyImages(const Window& window, std::size_t first, std::size_t last) {
    double y = kMargin;
    setFont(12, true);
    text(y, kSectionH, tr("Key images"));
    y += kSectionH;
    const double boxW = (kContentW - 2 * kKeyBoxGap) / 3;
    const int maxSize = static_cast<int>(std::lround(mm(boxW) / 2));  // about 150 dpi in the PDF
    for (std::size_t i = first; i < last; ++i) {
      const core::LabelStatistics& s = m_in.stats[i];
      setFont(9, true);
      m_p.fillRect(QRectF(mm(kMargin), mm(y + 1.5), mm(3), mm(3)), labelColor(m_in, s.label));
      const QRectF title(mm(kMargin + 5), mm(y), mm(kContentW - 5), mm(kKeyTitleH));
      m_p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                   tr("%1 %2: %3, centroid (%4, %5, %6) mm LPS")
                       .arg(s.label).arg(labelName(m_in, s.label)).arg(formatVolumeMl(s.volumeMl))
                       .arg(number(s.centroidLps[0], 1), number(s.centroidLps[1], 1), number(s.centroidLps[2], 1)));
      y += kKeyTitleH;
      static const std::array<const char*, 3> kNames{QT_TRANSLATE_NOOP("delineate::app::gui::PdfReport", "Axial"),
                                                     QT_TRANSLATE_NOOP("delineate::app::gui::PdfReport", "Coronal"),
                                                     QT_TRANSLATE_NOOP("delineate::app::gui::PdfReport", "Sagittal")};
      for (int o = 0; o < 3; ++o) {
        const QRectF box(mm(kMargin + o * (boxW + kKeyBoxGap)), mm(y), mm(boxW), mm(kKeyBoxH));
        m_p.fillRect(box, Qt::black);
        SliceInfo info;
        const std::array<std::int64_t, 3>* sections = nullptr;
        if (m_sections != nullptr)
          if (const auto it = m_sections->find(s.label); it != m_sections->end()) sections = &it->second;
        const QImage key = renderKey(m_in, window, s.label, o, maxSize, &info, sections);
        if (!key.isNull()) {
          QSizeF size = QSizeF(key.size()).scaled(box.size(), Qt::KeepAspectRatio);
          const QRectF target(box.center().x() - size.width() / 2, box.center().y() - size.height() / 2, size.width(),
                              size.height());
          m_p.drawImage(target, key);
          orientationLetters(target, o);
        }
        setFont(7.5);
        m_p.drawText(QRectF(box.left(), mm(y + kKeyBoxH), box.width(), mm(kKeyCaptionH)), Qt::AlignCenter,
                     tr("%1, slice %2 of %3").arg(tr(kNames[static_cast<std::size_t>(o)])).arg(info.slice + 1).arg(info.count));
      }
      y += kKeyBoxH + kKeyCaptionH + kKeyGap;
    }
  }

 private:
  void setFont(double points, bool bold = false) {
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(points);
    f.setBold(bold);
    f.setStyleStrategy(QFont::PreferNoShaping);  // no "fi" ligatures: pdftotext and searches find the words
    m_p.setFont(f);
  }
  void text(double y, double height, const QString& s) {
    m_p.drawText(QRectF(mm(kMargin), mm(y), mm(kContentW), mm(height)), Qt::AlignLeft | Qt::AlignVCenter, s);
  }
  // A line of the header that must be read whole (UIDs): a smaller font, down to 7 pt, where it is wider than the page.
  void fittedText(double y, double height, const QString& s) {
    const QFont before = m_p.font();
    for (double points = before.pointSizeF(); points > 7 && m_p.fontMetrics().horizontalAdvance(s) > mm(kContentW);) {
      points = std::max(7.0, points - 0.5);
      setFont(points);
    }
    text(y, height, s);
    m_p.setFont(before);
  }
  void row(double y, double height, const std::array<QString, 11>& cells, int flags) {
    double x = kMargin;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const double w = Columns::kWidth[c];
      const QRectF r(mm(x + 0.8), mm(y), mm(w - 1.6), mm(height));
      const int align = (c <= 2 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter;
      const QString text = flags == 0 ? QFontMetricsF(m_p.font(), m_p.device()).elidedText(cells[c], Qt::ElideRight, r.width())
                                      : cells[c];
      m_p.drawText(r, align | flags, text);
      x += w;
    }
  }

  QPainter& m_p;
  const PdfReportInput& m_in;
  const std::map<core::Label, std::array<std::int64_t, 3>>* m_sections = nullptr;
  int m_pages;
};

int tablePages(std::size_t rows) {
  if (rows <= static_cast<std::size_t>(kPdfTableRowsFirstPage)) return 1;
  const std::size_t rest = rows - kPdfTableRowsFirstPage;
  return 1 + static_cast<int>((rest + kPdfTableRowsPerPage - 1) / kPdfTableRowsPerPage);
}

core::Error fileError(core::ErrorCode code, const QString& path, const QString& detail) {
  return core::makeError(code, path.toStdString(), detail.toStdString());
}

}  // namespace

int pdfReportPageCount(std::size_t labelCount) {
  return tablePages(labelCount) +
         static_cast<int>((labelCount + kPdfKeyImageLabelsPerPage - 1) / kPdfKeyImageLabelsPerPage);
}

QImage renderKeyImage(const PdfReportInput& input, core::Label label, int orientation, int maxSize) {
  return renderKey(input, reportWindow(input), label, orientation, maxSize);
}

core::Status writePdfReport(const QString& path, const PdfReportInput& input) {
  if (input.labels != nullptr && input.image &&
      input.labels->geometry().dimensions() != input.image.geometry().dimensions())
    return fileError(core::ErrorCode::GeometryMismatch, path, QStringLiteral("the label map and the image differ in size"));

  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  {
    QPdfWriter writer(&buffer);
    writer.setResolution(kDpi);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    writer.setCreator(QStringLiteral("Delineate"));
    if (input.deidentified) {
      writer.setTitle(QCoreApplication::translate("delineate::app::gui::PdfReport", "De-identified report"));
      // Qt's own XMP packet carries creation and modification dates; this one carries none.
      writer.setDocumentXmpMetadata(QByteArrayLiteral(
          "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>"
          "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
          "<rdf:Description rdf:about='' xmlns:xmp='http://ns.adobe.com/xap/1.0/'><xmp:CreatorTool>Delineate"
          "</xmp:CreatorTool></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end='w'?>"));
    } else {
      writer.setTitle(input.studyTitle.isEmpty()
                          ? QCoreApplication::translate("delineate::app::gui::PdfReport", "Segmentation report")
                          : QCoreApplication::translate("delineate::app::gui::PdfReport", "Segmentation report: %1")
                                .arg(input.studyTitle));
    }
    const int pages = pdfReportPageCount(input.stats.size());
    QPainter painter;
    if (!painter.begin(&writer))
      return fileError(core::ErrorCode::WriteFailed, path, QStringLiteral("cannot start the PDF"));
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    ReportPainter report(painter, input, pages);
    std::map<core::Label, std::array<std::int64_t, 3>> sections;
    if (input.labels != nullptr && !input.labels->voxels().empty()) {
      std::vector<core::Label> ids;
      for (const auto& st : input.stats) ids.push_back(st.label);
      sections = largestSections(*input.labels, ids);
      report.setSections(&sections);
    }
    int page = 1;
    const std::size_t rows = input.stats.size();
    report.table(report.header(), 0, std::min<std::size_t>(rows, kPdfTableRowsFirstPage));
    report.footer(page);
    for (std::size_t first = kPdfTableRowsFirstPage; first < rows; first += kPdfTableRowsPerPage) {
      writer.newPage();
      report.table(kMargin, first, std::min<std::size_t>(rows, first + kPdfTableRowsPerPage));
      report.footer(++page);
    }
    const Window window = reportWindow(input);
    for (std::size_t first = 0; first < rows; first += kPdfKeyImageLabelsPerPage) {
      writer.newPage();
      report.keyImages(window, first, std::min<std::size_t>(rows, first + kPdfKeyImageLabelsPerPage));
      report.footer(++page);
    }
    if (!painter.end()) return fileError(core::ErrorCode::WriteFailed, path, QStringLiteral("cannot finish the PDF"));
  }
  QByteArray pdf = buffer.data();
  if (input.deidentified) blankInfoEntry(pdf, QByteArrayLiteral("/CreationDate"));

  const bool replacing = QFileInfo::exists(path);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    const QFileInfo dir(QFileInfo(path).absolutePath());
    return fileError(dir.isDir() ? core::ErrorCode::WriteFailed : core::ErrorCode::NotFound, path,
                     dir.isDir() ? file.errorString() : QStringLiteral("the folder does not exist"));
  }
  // The report names the patient: a new file is 0640 narrowed by the umask, as io writes files at a path the user
  // chose (io/base/file_modes.h); QSaveFile would make it 0666 narrowed by the umask. A replaced file keeps its mode.
  if (!replacing)
    file.setPermissions(file.permissions() & (QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                                              QFileDevice::WriteUser | QFileDevice::ReadGroup));
  if (file.write(pdf) != pdf.size() || !file.commit())
    return fileError(core::ErrorCode::WriteFailed, path, file.errorString());
  return core::Status::success();
}

}  // namespace delineate::app::gui
