#pragma once
// Label statistics as files other programs read: CSV (one row per label) and JSON (the same plus the study's grid
// and where the numbers come from). One writer for the CLI (`delineate-cli info --format csv|json`) and the window's
// File > Export. De-identified reports name no file, series or patient: only the numbers and the label table.

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/geometry.h"
#include "core/label_table.h"
#include "core/statistics.h"

namespace delineate::io {

struct StatisticsReportInfo {
  std::string image;        // the image file or series the statistics are of (left out when de-identified)
  std::string labelSource;  // the label file, share revision or engine (left out when de-identified)
  std::string intensityUnit;  // "HU" for CT, empty for other images
  std::optional<core::Geometry> geometry;
  std::optional<core::SliceRange> slices;  // the statistics cover only these slices
  bool deidentified = false;
};

// Columns: label, name, voxels, volume_ml, mean, std, min, max, median, longest_diameter_mm, centroid (LPS mm),
// bounding box (ijk), colour (#rrggbb), code (scheme:value of the label's segmented property type, if any).
// Empty fields for values that do not exist (no image: no intensities). Names with ',', '"' or newlines are quoted.
std::string statisticsCsv(const std::vector<core::LabelStatistics>& stats, const core::LabelTable& table);
std::string statisticsJson(const std::vector<core::LabelStatistics>& stats, const core::LabelTable& table,
                           const StatisticsReportInfo& info);
// .csv or .json by the path's extension (else InvalidArgument naming the file), written atomically: a failed write
// leaves an existing file as it was.
core::Status writeStatisticsFile(const std::string& path, const std::vector<core::LabelStatistics>& stats,
                                 const core::LabelTable& table, const StatisticsReportInfo& info);

// "label 7" for ids the table lacks.
std::string labelDisplayName(const core::LabelTable& table, core::Label id);

}  // namespace delineate::io
