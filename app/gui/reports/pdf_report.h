#pragma once
// The PDF report of a segmentation: a header, the label statistics table and key images (axial, coronal and
// sagittal slices through each label's centroid), drawn with QPdfWriter + QPainter. The key images are computed
// straight from the volumes into QImages, so the report needs no OpenGL and can be written off the GUI thread.

#include <QImage>
#include <QString>

#include <cstddef>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "core/scalar_image.h"
#include "core/statistics.h"
#include "core/volume.h"

namespace delineate::app::gui {

struct PdfReportInput {
  core::ImageView image;                     // may be empty: key images then show the labels alone
  const core::LabelMap* labels = nullptr;    // required for key images; same grid as the image
  const core::LabelTable* table = nullptr;   // may be null: names "label N", colours LabelTable::defaultColor
  std::vector<core::LabelStatistics> stats;  // as computed by core (with the image); one table row and key-image row each
  // Identification, each on its own header line and left out when empty or de-identified (descriptions may carry
  // names or dates): the patient (name, ID), the study (description, accession, date, Study Instance UID, or the file
  // name of a study that is not DICOM) and the series (number, description, modality, Series Instance UID).
  QString patientTitle;
  QString studyTitle;
  QString seriesTitle;
  bool isCt = false;          // HU units and a soft-tissue window (400/40) for key images; else 1st..99th percentile
  bool deidentified = false;  // no names, IDs, file names or dates anywhere in the PDF, metadata included
};

// Fixed layout, so the page count is known before drawing ("Page n of N") and tests can predict it.
inline constexpr int kPdfTableRowsFirstPage = 30;
inline constexpr int kPdfTableRowsPerPage = 37;   // continuation pages of the table
inline constexpr int kPdfKeyImageLabelsPerPage = 3;
// Pages of a report with `labelCount` table rows: the table (at least one page) and then the key-image pages.
int pdfReportPageCount(std::size_t labelCount);

// Writes an A4 PDF: the header (title, study identification and report date unless de-identified, software name and
// version), the label table (colour swatch, id, name, voxels, mL, mean, std, min, max, median, longest diameter mm)
// over as many pages as it needs, then key-image pages; "Page n of N" on every page. Atomic: written next to `path`
// and renamed, so a failure leaves an existing file untouched. Errors name the file.
core::Status writePdfReport(const QString& path, const PdfReportInput& input);

// The key image of one label in one orientation (0 axial, 1 coronal, 2 sagittal): the voxel slice where the label's
// cross-section is largest (index axes matched to the patient axes they point closest to; in the PDF with the
// patient directions at its edges), window/level applied, the label overlaid
// in its colour at 50 % and other labels faintly. Radiological display: the patient's right on the image's left,
// anterior up in axial, superior up in coronal and sagittal (anterior on the left). Pixels are scaled to the voxel
// spacing so the image has the physical aspect; its longer side is `maxSize`. Null for a label without statistics,
// without a label map, or a bad orientation.
QImage renderKeyImage(const PdfReportInput& input, core::Label label, int orientation, int maxSize = 384);

}  // namespace delineate::app::gui
