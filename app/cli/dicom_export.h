#pragma once
// A label map on a DICOM series as a DICOM SEG and, optionally, a TID 1500 measurement report referencing it: the one
// path export-dicom and share report take.
#include <cstddef>
#include <string>

#include "core/error.h"
#include "core/label_map.h"
#include "core/label_table.h"
#include "core/volume.h"
#include "io/dicom.h"

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

// `image`: the series' voxels, needed only for the SR's statistics (may be null when srPath is empty).
core::Result<DicomExportResult> exportSegAndSr(const io::DicomSeries& series, const core::ImageVolume* image,
                                               const core::LabelMap& labels, const core::LabelTable& table,
                                               const std::string& segPath, const std::string& srPath,
                                               const DicomExportOptions& options);

}  // namespace delineate::app::cli
