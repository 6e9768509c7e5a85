#pragma once
// A label map on a DICOM series as a DICOM SEG and, optionally, a TID 1500 measurement report referencing it: the one
// path export-dicom and share report take; and what export-dicom and export-rtstruct start from.
#include <cstddef>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "core/statistics.h"
#include "io/dicom/dicom.h"

namespace delineate::app::cli {

struct DicomExportOptions {
  bool labelmap = false;    // LABELMAP SEG (label ids kept) instead of BINARY
  bool deidentify = false;  // PS3.15 basic profile; the SR then names no person
  std::string observer;     // the SR's person observer; empty: the device
};

struct DicomExportResult {
  std::size_t segments = 0;
  std::size_t groups = 0;  // measurement groups in the SR (0 without one)
};

// `stats`: the labels' statistics on the series' voxels (HU for CT), needed only for the SR (may be null when srPath
// is empty). Both files or neither replace what is there (io::writeDicomSegAndSr).
core::Result<DicomExportResult> exportSegAndSr(const io::DicomSeries& series,
                                               const std::vector<core::LabelStatistics>* stats,
                                               const core::LabelMap& labels, const core::LabelTable& table,
                                               const std::string& segPath, const std::string& srPath,
                                               const DicomExportOptions& options);

// What a DICOM export starts from: the image series of a folder (as chooseImageSeries picks it), a label map holding
// at least one label, and its names from `tablePath`, else (with `tableBeside`) the table beside the map.
struct LabelsOnSeries {
  io::DicomIndex index;
  const io::DicomSeries* series = nullptr;  // into index
  core::LabelMap labels;
  core::LabelTable table;
};
// 0, or the exit code (the reason printed).
int readLabelsOnSeries(const std::string& dicom, const std::string& seriesKey, const std::string& labelsPath,
                       const std::string& tablePath, bool tableBeside, LabelsOnSeries& out);

}  // namespace delineate::app::cli
